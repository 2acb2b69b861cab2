/// The search index's posting lists: for one piece in one segment, the ids of the posters
/// whose key holds it, highest first, as unsigned LEB128 varints — the first id, then each
/// gap down to the next (at least 1). Newest-first search reads them from the front and
/// stops once its page is full; a common piece costs a byte or so a poster.
///
/// Lists are stored in blocks (``PostingBlock``): most pieces of a batch are rare pairs with
/// a list of a few bytes, and a row each made a batch of 20,000 posters 100,000 rows.
package enum PostingCoding {
    /// Appends `ids` (strictly descending, all positive) to `bytes`.
    package static func encode(descending ids: some Sequence<Int64>, into bytes: inout [UInt8]) {
        var previous: Int64?
        for id in ids {
            append(UInt64(previous.map { $0 - id } ?? id), to: &bytes)
            previous = id
        }
    }

    /// Appends one varint.
    package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// The ids of a list, highest first; nil for bytes that are not one (cut off, a varint
    /// longer than nine bytes, an id that is not positive, or one not below the one before).
    package static func decode(_ bytes: [UInt8], _ range: Range<Int>) -> [Int64]? {
        var ids: [Int64] = []
        return decode(bytes, range, appendingTo: &ids) ? ids : nil
    }

    /// Appends the ids of the list at `range` of `bytes`; false if it is not one.
    package static func decode(_ bytes: [UInt8], _ range: Range<Int>, appendingTo ids: inout [Int64]) -> Bool {
        var cursor = PostingCursor(bytes, range)
        while let id = cursor.current {
            ids.append(id)
            cursor.advance()
        }
        return !cursor.isDamaged
    }

    /// Reads one varint at `offset` of `bytes` before `end`, moving past it; nil if it is cut
    /// off or longer than nine bytes.
    package static func varint(_ bytes: [UInt8], at offset: inout Int, end: Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < end && shift < 63 {
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }
}

/// Reads one posting list from the front, highest id first. Damaged bytes end the list
/// early (``isDamaged``): a query then misses what it cannot read instead of failing, and
/// `tenbin check` reports the damage.
package struct PostingCursor {
    private let bytes: [UInt8]
    private var offset: Int
    private let end: Int
    /// The id the cursor is at; nil once the list is done.
    package private(set) var current: Int64?
    /// Whether the list ended at bytes that are not a posting list.
    package private(set) var isDamaged = false

    /// A cursor over the list at `range` of `bytes` (shared, not copied).
    package init(_ bytes: [UInt8], _ range: Range<Int>) {
        self.bytes = bytes
        offset = range.lowerBound
        end = range.upperBound
        // A stored list is never empty: the index writes no entry for a piece without posters.
        if let first = PostingCoding.varint(bytes, at: &offset, end: end), first > 0, first <= UInt64(Int64.max) {
            current = Int64(first)
        } else {
            isDamaged = true
        }
    }

    /// Moves to the next, lower id.
    package mutating func advance() {
        guard let id = current else { return }
        guard offset < end else {
            current = nil
            return
        }
        guard let gap = PostingCoding.varint(bytes, at: &offset, end: end), gap > 0, gap < UInt64(id) else {
            current = nil
            isDamaged = true
            return
        }
        current = id - Int64(gap)
    }

    /// Moves to the highest id at most `target` (or to the end).
    package mutating func seek(atMost target: Int64) {
        while let id = current, id > target { advance() }
    }
}

/// A block of posting lists, one row of `search_posting`: entries in increasing order of
/// piece, each the gap from the entry before (0 for the first, whose piece is the row's),
/// the list's length in bytes, and the list. A block holds lists until it is about
/// ``targetSize`` bytes; a longer list has a block to itself.
package enum PostingBlock {
    package static let targetSize = 4_000

    /// Calls `body` with each entry's piece and the range of its list in `block` until it
    /// returns false; false if the block is not one (then `body` saw only what could be read).
    @discardableResult
    package static func forEach(_ block: [UInt8], firstPiece: UInt64, _ body: (UInt64, Range<Int>) throws -> Bool) rethrows -> Bool {
        var offset = 0
        var piece = firstPiece
        var first = true
        while offset < block.count {
            guard let gap = PostingCoding.varint(block, at: &offset, end: block.count), first == (gap == 0),
                gap <= UInt64.max - piece, let length = PostingCoding.varint(block, at: &offset, end: block.count),
                length > 0, length <= UInt64(block.count - offset)
            else { return false }
            piece += gap
            first = false
            let list = offset..<(offset + Int(length))
            offset = list.upperBound
            guard try body(piece, list) else { return true }
        }
        return !first
    }

    /// Packs lists, given in increasing order of piece, into blocks.
    package struct Writer {
        private var first: UInt64?
        private var last: UInt64 = 0
        private var bytes: [UInt8] = []
        private let flush: (UInt64, [UInt8]) throws -> Void

        /// A writer handing each full block to `flush` with its first piece.
        package init(flush: @escaping (UInt64, [UInt8]) throws -> Void) {
            self.flush = flush
        }

        package mutating func append(_ piece: UInt64, list: some Collection<UInt8>) throws {
            if first != nil && bytes.count + list.count > PostingBlock.targetSize { try finish() }
            if let first = self.first {
                precondition(piece > last && first < piece, "pieces are appended in increasing order")
                PostingCoding.append(piece - last, to: &bytes)
            } else {
                first = piece
                bytes.append(0)
            }
            PostingCoding.append(UInt64(list.count), to: &bytes)
            bytes.append(contentsOf: list)
            last = piece
        }

        /// Hands over the block under way, if any.
        package mutating func finish() throws {
            guard let first else { return }
            try flush(first, bytes)
            self.first = nil
            bytes.removeAll(keepingCapacity: true)
        }
    }
}

/// One segment of the search index as a search sees it: its id, and the highest poster id any
/// of its lists can hold (its *top*). A segment's posters are a batch's, so its top is the
/// batch's highest id (a merge's, the highest of its sources'); a store that never recorded
/// it says `Int64.max`, which reads the segment first.
package struct IndexSegment: Equatable, Sendable {
    package let id: Int64
    package let top: Int64

    package init(id: Int64, top: Int64) {
        self.id = id
        self.top = top
    }
}

/// One search term's ids across every segment, highest first: a cursor per segment's list,
/// the term at the highest id any of them is at. Segments hold different posters except
/// when a poster was edited (its new pieces go to a newer segment), so an id can be in two
/// lists; it is reported once.
///
/// A segment is read only once the term has gone below its top: a page of the newest
/// matches of a common word is found in the newest, small segments, and the long lists of
/// the old, large ones (most of the index's bytes) are never read.
/// (PostgreSQL, where a read is a round trip, reads tiers of segments for every term at once
/// and gives their lists to ``init(_:)``; see `PostgresSession+Search.swift`.)
package struct TermCursor {
    private var lists: [PostingCursor] = []
    /// Segments not read yet, the highest top first.
    private var unread: ArraySlice<IndexSegment>
    private let read: (Int64) throws -> [PostingCursor]
    /// The id the term is at; nil once every list is done.
    package private(set) var current: Int64?
    /// How many segments the term has read so far.
    package private(set) var segmentsRead = 0

    /// A cursor over lists already read, every segment's that can hold the term at once (as
    /// PostgreSQL reads a tier of segments for every term in one statement).
    package init(_ lists: [PostingCursor]) {
        unread = []
        read = { _ in [] }
        self.lists = lists.filter { $0.current != nil }
        current = self.lists.lazy.compactMap(\.current).max()
    }

    /// A cursor over `segments`, reading a segment's lists for this term with `read` (given
    /// its id) when it is first needed.
    package init(segments: [IndexSegment], read: @escaping (Int64) throws -> [PostingCursor]) throws {
        unread = segments.sorted { $0.top > $1.top }[...]
        self.read = read
        var highest: Int64?
        try readSegments(atMost: Int64.max, highest: &highest)
        current = highest
    }

    /// Moves to the highest id at most `target` in any list (or to the end).
    package mutating func seek(atMost target: Int64) throws {
        guard let id = current, id > target else { return }
        var highest: Int64?
        var index = 0
        while index < lists.count {
            // Only a list above the target is sought: seeking (a mutation) checked the array's
            // uniqueness, once per list per step, most of an intersection's time when every
            // segment's lists are read at once (PostgreSQL).
            if let id = lists[index].current, id > target { lists[index].seek(atMost: target) }
            if let id = lists[index].current {
                highest = max(highest ?? id, id)
                index += 1
            } else {
                lists.swapAt(index, lists.count - 1)
                lists.removeLast()
            }
        }
        try readSegments(atMost: target, highest: &highest)
        current = highest
    }

    /// Reads the unread segments that may hold an id at most `target` above `highest` (the
    /// highest found so far), moving `highest` up to theirs.
    private mutating func readSegments(atMost target: Int64, highest: inout Int64?) throws {
        while let next = unread.first, min(next.top, target) > (highest ?? 0) {
            unread.removeFirst()
            segmentsRead += 1
            for var list in try read(next.id) {
                list.seek(atMost: target)
                guard let id = list.current else { continue }
                highest = max(highest ?? id, id)
                lists.append(list)
            }
        }
    }
}

/// The ids holding every term, highest first, below a bound: each term seeks to the lowest
/// id the others are at until all agree.
package struct PostingIntersection {
    private var terms: [TermCursor]
    private var target: Int64

    package init(_ terms: [TermCursor], below: Int64?) {
        self.terms = terms
        target = (below ?? Int64.max) &- 1
    }

    /// The next id, or nil when there is none.
    package mutating func next() throws -> Int64? {
        guard !terms.isEmpty else { return nil }
        while target > 0 {
            var lowest = Int64.max
            var agree = true
            for index in terms.indices {
                try terms[index].seek(atMost: target)
                guard let id = terms[index].current else { return nil }
                if id != target { agree = false }
                lowest = min(lowest, id)
            }
            if agree {
                target -= 1
                return lowest
            }
            target = lowest
        }
        return nil
    }

    /// How many segments the terms have read so far, all together.
    package var segmentsRead: Int { terms.reduce(0) { $0 + $1.segmentsRead } }
}

extension Array where Element: Equatable {
    /// Removes each element equal to the one before it.
    package mutating func removeDuplicatesInSortedOrder() {
        guard count > 1 else { return }
        var kept = 1
        for index in 1..<count where self[index] != self[kept - 1] {
            self[kept] = self[index]
            kept += 1
        }
        removeLast(count - kept)
    }
}
