/// What a backend keeping its own posting lists (SQLite's schema 8; PostgreSQL's step 14 on the
/// h23-pgsearch-postings branch, see docs/benchmarks.md) shares beyond the lists' coding: segments of a size class (a *level*: 1–7 posters, 8–63, …) are
/// merged into one as soon as there are ``segmentsPerMerge``, a step at a time
/// (``step(_:stale:budget:into:)``), so a store of a million posters has a few dozen at most
/// and a term is a few dozen block lookups. Each backend keeps the segments in its own tables
/// and says which to merge; this is the merging itself.
package enum PostingMerge {
    /// How many segments of one level are merged into one.
    package static let segmentsPerMerge = 8

    /// The level of a segment of `posters` posters: 0 for 1–7, 1 for 8–63, and so on.
    package static func level(posters: Int) -> Int {
        var level = 0
        var size = max(1, posters)
        while size >= segmentsPerMerge {
            size /= segmentsPerMerge
            level += 1
        }
        return level
    }

    /// How many bytes of lists a transaction that wrote `written` bytes of new ones moves
    /// through merges: eight times its own (a byte is merged once per level, and a million
    /// posters make five or six levels, so merges keep pace with writing), and at least `step`
    /// (so single posts move a big merge on in steps of a few tens of milliseconds instead of
    /// one post waiting seconds for all of it).
    package static func budget(written: Int, step: Int) -> Int {
        max(step, 8 * written)
    }

    /// Moves a merge on: the lists of `readers` (the merge's sources, newest first: their ids
    /// are usually the highest, so the lists join in order), in order of piece, are merged into
    /// `blocks` until about `budget` bytes have been read, leaving out each id `stale` marks
    /// (an id whose mark is at or above a source's segment is stale there). What a reader has
    /// not read is its ``SegmentEntries/rest``: the caller takes what was read out of the
    /// sources, so that every piece is in the target or in the sources, never both.
    package static func step(
        _ readers: inout [SegmentEntries], stale: [Int64: Int64], budget: inout Int, into blocks: inout PostingBlock.Writer
    )
        throws
    {
        var ids: [Int64] = []
        var bytes: [UInt8] = []
        while budget > 0, let piece = readers.lazy.compactMap(\.piece).min() {
            ids.removeAll(keepingCapacity: true)
            var ordered = true
            for index in readers.indices where readers[index].piece == piece {
                let start = ids.count
                let segment = readers[index].segment
                budget -= try readers[index].appendList(to: &ids)
                if !stale.isEmpty {
                    var kept = start
                    for at in start..<ids.count where stale[ids[at]].map({ segment > $0 }) ?? true {
                        ids[kept] = ids[at]
                        kept += 1
                    }
                    ids.removeLast(ids.count - kept)
                }
                if start > 0 && start < ids.count && ids[start - 1] <= ids[start] { ordered = false }
                try readers[index].advance()
            }
            if !ordered {
                ids.sort(by: >)
                ids.removeDuplicatesInSortedOrder()
            }
            guard !ids.isEmpty else { continue }
            bytes.removeAll(keepingCapacity: true)
            PostingCoding.encode(descending: ids, into: &bytes)
            try blocks.append(piece, list: bytes)
        }
        try blocks.finish()
    }
}

/// A segment's lists in order of piece, read block by block (a merge reads one per segment)
/// from rows its backend hands over in order of first piece.
package struct SegmentEntries {
    package let segment: Int64
    private let nextRow: () throws -> (piece: Int64, block: [UInt8])?
    private let damaged: (String) -> any Error
    private var block: [UInt8] = []
    /// The row key (first piece) of `block`.
    private var blockPiece: Int64 = 0
    private var entries: [(piece: UInt64, list: Range<Int>)] = []
    private var next = 0
    /// The piece of the list the reader is at; nil once the segment is done.
    package private(set) var piece: UInt64?

    /// What a reader has not read yet: every block from `block` (a row key) on, of which that
    /// first one only from `lists`.
    package struct Rest {
        package let block: Int64
        package let lists: [(piece: UInt64, bytes: ArraySlice<UInt8>)]
    }

    /// The lists not read yet; nil once the segment is done.
    package var rest: Rest? {
        guard piece != nil else { return nil }
        return Rest(block: blockPiece, lists: entries[(next - 1)...].map { ($0.piece, block[$0.list]) })
    }

    /// A reader of `segment` whose rows `nextRow` hands over one by one (nil after the last);
    /// damage is thrown as `damaged` makes it from a description of what could not be read.
    package init(
        segment: Int64, rows nextRow: @escaping () throws -> (piece: Int64, block: [UInt8])?, damaged: @escaping (String) -> any Error
    ) throws {
        self.segment = segment
        self.nextRow = nextRow
        self.damaged = damaged
        try advance()
    }

    /// Appends the ids of the current list to `ids`; returns the list's size in bytes.
    mutating func appendList(to ids: inout [Int64]) throws -> Int {
        let list = entries[next - 1].list
        guard PostingCoding.decode(block, list, appendingTo: &ids) else {
            throw damaged("a list of its search index (segment \(segment), piece \(entries[next - 1].piece)) cannot be read")
        }
        return list.count
    }

    /// Moves to the next list.
    package mutating func advance() throws {
        while next == entries.count {
            guard let row = try nextRow() else {
                piece = nil
                return
            }
            block = row.block
            blockPiece = row.piece
            entries.removeAll(keepingCapacity: true)
            next = 0
            let complete = PostingBlock.forEach(block, firstPiece: UInt64(bitPattern: blockPiece)) { piece, list in
                entries.append((piece, list))
                return true
            }
            guard complete else { throw damaged("a block of its search index (segment \(segment)) cannot be read") }
        }
        piece = entries[next].piece
        next += 1
    }
}

extension IndexTerm {
    /// The pieces the term matches, as ranges of packed pieces: an exact term its one piece; a
    /// prefix term (``isPrefix``) of one character that piece and every pair starting with it;
    /// nil for a term that names no piece (it matches nothing).
    package var pieceRanges: [ClosedRange<Int64>]? {
        guard let piece = SearchGrams.piece(packedFromToken: token).map({ Int64(bitPattern: $0) }) else { return nil }
        guard isPrefix, piece < 1 << 21 else { return [piece...piece] }
        return [piece...piece, (piece << 21)...((piece << 21) | 0x1F_FFFF)]
    }
}

extension PostingBlock {
    /// Adds a cursor to `found` for each list of `block` (whose first piece is `firstPiece`)
    /// within `range`; false once the block reaches past it.
    @discardableResult
    package static func cursors(in block: [UInt8], firstPiece: Int64, within range: ClosedRange<Int64>, into found: inout [PostingCursor])
        -> Bool
    {
        var more = true
        forEach(block, firstPiece: UInt64(bitPattern: firstPiece)) { piece, list in
            let piece = Int64(bitPattern: piece)
            if range.contains(piece) { found.append(PostingCursor(block, list)) }
            more = piece < range.upperBound
            return more
        }
        return more
    }
}
