import TenbinKit

/// The search index's posting lists: for one piece in one segment, the ids of the posters
/// whose key holds it, highest first, as unsigned LEB128 varints — the first id, then each
/// gap down to the next (at least 1). Newest-first search reads them from the front and
/// stops once its page is full; a common piece costs a byte or so a poster.
///
/// Lists are stored in blocks (``PostingBlock``): most pieces of a batch are rare pairs with
/// a list of a few bytes, and a row each made a batch of 20,000 posters 100,000 rows.
enum PostingCoding {
    /// Appends `ids` (strictly descending, all positive) to `bytes`.
    static func encode(descending ids: some Sequence<Int64>, into bytes: inout [UInt8]) {
        var previous: Int64?
        for id in ids {
            append(UInt64(previous.map { $0 - id } ?? id), to: &bytes)
            previous = id
        }
    }

    /// Appends one varint.
    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// The ids of a list, highest first; nil for bytes that are not one (cut off, a varint
    /// longer than nine bytes, an id that is not positive, or one not below the one before).
    static func decode(_ bytes: [UInt8], _ range: Range<Int>) -> [Int64]? {
        var ids: [Int64] = []
        return decode(bytes, range, appendingTo: &ids) ? ids : nil
    }

    /// Appends the ids of the list at `range` of `bytes`; false if it is not one.
    static func decode(_ bytes: [UInt8], _ range: Range<Int>, appendingTo ids: inout [Int64]) -> Bool {
        var cursor = PostingCursor(bytes, range)
        while let id = cursor.current {
            ids.append(id)
            cursor.advance()
        }
        return !cursor.isDamaged
    }

    /// Reads one varint at `offset` of `bytes` before `end`, moving past it; nil if it is cut
    /// off or longer than nine bytes.
    static func varint(_ bytes: [UInt8], at offset: inout Int, end: Int) -> UInt64? {
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
struct PostingCursor {
    private let bytes: [UInt8]
    private var offset: Int
    private let end: Int
    /// The id the cursor is at; nil once the list is done.
    private(set) var current: Int64?
    /// Whether the list ended at bytes that are not a posting list.
    private(set) var isDamaged = false

    /// A cursor over the list at `range` of `bytes` (shared, not copied).
    init(_ bytes: [UInt8], _ range: Range<Int>) {
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
    mutating func advance() {
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
    mutating func seek(atMost target: Int64) {
        while let id = current, id > target { advance() }
    }
}

/// A block of posting lists, one row of `search_posting`: entries in increasing order of
/// piece, each the gap from the entry before (0 for the first, whose piece is the row's),
/// the list's length in bytes, and the list. A block holds lists until it is about
/// ``targetSize`` bytes; a longer list has a block to itself.
enum PostingBlock {
    static let targetSize = 4_000

    /// Calls `body` with each entry's piece and the range of its list in `block` until it
    /// returns false; false if the block is not one (then `body` saw only what could be read).
    @discardableResult
    static func forEach(_ block: [UInt8], firstPiece: UInt64, _ body: (UInt64, Range<Int>) throws -> Bool) rethrows -> Bool {
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
    struct Writer {
        private var first: UInt64?
        private var last: UInt64 = 0
        private var bytes: [UInt8] = []
        private let flush: (UInt64, [UInt8]) throws -> Void

        /// A writer handing each full block to `flush` with its first piece.
        init(flush: @escaping (UInt64, [UInt8]) throws -> Void) {
            self.flush = flush
        }

        mutating func append(_ piece: UInt64, list: some Collection<UInt8>) throws {
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
        mutating func finish() throws {
            guard let first else { return }
            try flush(first, bytes)
            self.first = nil
            bytes.removeAll(keepingCapacity: true)
        }
    }
}

/// One search term's ids across every segment, highest first: a cursor per segment's list,
/// the term at the highest id any of them is at. Segments hold different posters except
/// when a poster was edited (its new pieces go to a newer segment), so an id can be in two
/// lists; it is reported once.
struct TermCursor {
    private var lists: [PostingCursor]
    /// The id the term is at; nil once every list is done.
    private(set) var current: Int64?

    init(_ lists: [PostingCursor]) {
        self.lists = lists.filter { $0.current != nil }
        current = self.lists.lazy.compactMap(\.current).max()
    }

    /// Moves to the highest id at most `target` in any list (or to the end).
    mutating func seek(atMost target: Int64) {
        guard let id = current, id > target else { return }
        var highest: Int64?
        var index = 0
        while index < lists.count {
            lists[index].seek(atMost: target)
            if let id = lists[index].current {
                highest = max(highest ?? id, id)
                index += 1
            } else {
                lists.swapAt(index, lists.count - 1)
                lists.removeLast()
            }
        }
        current = highest
    }
}

/// The ids holding every term, highest first, below a bound: each term seeks to the lowest
/// id the others are at until all agree.
struct PostingIntersection: IteratorProtocol {
    private var terms: [TermCursor]
    private var target: Int64

    init(_ terms: [TermCursor], below: Int64?) {
        self.terms = terms
        target = (below ?? Int64.max) &- 1
    }

    mutating func next() -> Int64? {
        guard !terms.isEmpty else { return nil }
        while target > 0 {
            var lowest = Int64.max
            var agree = true
            for index in terms.indices {
                terms[index].seek(atMost: target)
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
}

/// A segment built in memory: for each piece, the ids of the posters holding it. Pieces go
/// to slots through a table of their own (open addressing, a multiplicative hash): a batch
/// of 20,000 posters adds about two million.
struct SegmentBuilder {
    private var keys: [UInt64]
    private var slotOfKey: [Int32]
    private var mask: Int
    /// Each slot's piece, in order of first appearance.
    private var pieces: [UInt64] = []
    /// Every posting, as its slot and its id, in the order added.
    private var slots: [Int32] = []
    private var ids: [Int64] = []
    /// How many posters it holds.
    let posters: Int

    /// The segment of posters `ids`, each with its pieces (each once:
    /// ``SearchGrams/pieces(forKey:)``). The piece table starts at twice 8 a poster (a batch
    /// of 20,000 holds about 100,000 distinct pieces) and the postings are reserved once.
    init(_ ids: [Int64], pieces: [[UInt64]]) {
        posters = ids.count
        let postings = pieces.reduce(0) { $0 + $1.count }
        slots.reserveCapacity(postings)
        self.ids.reserveCapacity(postings)
        var size = 1024
        while size < min(1 << 20, ids.count * 8) * 2 { size <<= 1 }
        keys = Array(repeating: 0, count: size)
        slotOfKey = Array(repeating: -1, count: size)
        mask = size - 1
        for (id, pieces) in zip(ids, pieces) { add(id, pieces: pieces) }
    }

    var isEmpty: Bool { slots.isEmpty }

    private mutating func add(_ id: Int64, pieces newPieces: [UInt64]) {
        for piece in newPieces {
            slots.append(slot(of: piece))
            ids.append(id)
        }
    }

    private mutating func slot(of piece: UInt64) -> Int32 {
        var index = Int(truncatingIfNeeded: (piece &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
        while true {
            let slot = slotOfKey[index]
            if slot < 0 { break }
            if keys[index] == piece { return slot }
            index = (index + 1) & mask
        }
        let slot = Int32(pieces.count)
        keys[index] = piece
        slotOfKey[index] = slot
        pieces.append(piece)
        if pieces.count * 2 > keys.count { grow() }
        return slot
    }

    private mutating func grow() {
        let old = zip(keys, slotOfKey).filter { $0.1 >= 0 }
        keys = Array(repeating: 0, count: keys.count * 2)
        slotOfKey = Array(repeating: -1, count: keys.count)
        mask = keys.count - 1
        for (piece, slot) in old {
            var index = Int(truncatingIfNeeded: (piece &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
            while slotOfKey[index] >= 0 { index = (index + 1) & mask }
            keys[index] = piece
            slotOfKey[index] = slot
        }
    }

    /// The segment's blocks in order of first piece (the order of its rows), each handed to
    /// `body` with its first piece.
    func blocks(_ body: @escaping (UInt64, [UInt8]) throws -> Void) throws {
        var writer = PostingBlock.Writer(flush: body)
        try lists { try writer.append($0, list: $1) }
        try writer.finish()
    }

    /// Each piece with its posting list, in order of piece.
    private func lists(_ body: (UInt64, [UInt8]) throws -> Void) rethrows {
        // The postings grouped by slot (a counting sort, keeping the order added).
        var starts = Array(repeating: 0, count: pieces.count + 1)
        for slot in slots { starts[Int(slot) + 1] += 1 }
        for index in 0..<pieces.count { starts[index + 1] += starts[index] }
        var grouped = Array(repeating: Int64(0), count: ids.count)
        var next = starts
        for (slot, id) in zip(slots, ids) {
            grouped[next[Int(slot)]] = id
            next[Int(slot)] += 1
        }
        var bytes: [UInt8] = []
        for slot in pieces.indices.sorted(by: { pieces[$0] < pieces[$1] }) {
            let group = grouped[starts[slot]..<starts[slot + 1]]
            bytes.removeAll(keepingCapacity: true)
            // An import adds posters in increasing order of id: the list is the group reversed.
            if zip(group, group.dropFirst()).allSatisfy({ $0 < $1 }) {
                PostingCoding.encode(descending: group.reversed(), into: &bytes)
            } else {
                var list = group.sorted(by: >)
                list.removeDuplicatesInSortedOrder()
                PostingCoding.encode(descending: list, into: &bytes)
            }
            try body(pieces[slot], bytes)
        }
    }
}

extension Array where Element: Equatable {
    /// Removes each element equal to the one before it.
    mutating func removeDuplicatesInSortedOrder() {
        guard count > 1 else { return }
        var kept = 1
        for index in 1..<count where self[index] != self[kept - 1] {
            self[kept] = self[index]
            kept += 1
        }
        removeLast(count - kept)
    }
}

/// A segment's lists in order of piece, read block by block (a merge reads one per segment).
struct SegmentEntries {
    let segment: Int64
    private let rows: Statement
    private var block: [UInt8] = []
    /// The row key (first piece) of `block`.
    private var blockPiece: Int64 = 0
    private var entries: [(piece: UInt64, list: Range<Int>)] = []
    private var next = 0
    /// The piece of the list the reader is at; nil once the segment is done.
    private(set) var piece: UInt64?

    /// What a reader has not read yet: every block from `block` (a row key) on, of which that
    /// first one only from `lists`.
    struct Rest {
        let block: Int64
        let lists: [(piece: UInt64, bytes: ArraySlice<UInt8>)]
    }

    /// The lists not read yet; nil once the segment is done.
    var rest: Rest? {
        guard piece != nil else { return nil }
        return Rest(block: blockPiece, lists: entries[(next - 1)...].map { ($0.piece, block[$0.list]) })
    }

    init(segment: Int64, in db: Database) throws {
        self.segment = segment
        rows = try db.freshStatement("SELECT piece, postings FROM search_posting WHERE segment = ? ORDER BY piece").bind(segment)
        try advance()
    }

    /// Calls `body` with the block and the range of the current list.
    func withList<T>(_ body: ([UInt8], Range<Int>) throws -> T) rethrows -> T {
        try body(block, entries[next - 1].list)
    }

    /// Moves to the next list.
    mutating func advance() throws {
        while next == entries.count {
            guard try rows.step() else {
                piece = nil
                return
            }
            block = rows.blob(1)
            blockPiece = rows.int64(0)
            entries.removeAll(keepingCapacity: true)
            next = 0
            let complete = PostingBlock.forEach(block, firstPiece: UInt64(bitPattern: blockPiece)) { piece, list in
                entries.append((piece, list))
                return true
            }
            guard complete else {
                throw SQLiteError(
                    code: 11,
                    message: "a block of its search index (segment \(segment)) cannot be read; `tenbin check --repair` rebuilds the index")
            }
        }
        piece = entries[next].piece
        next += 1
    }
}

extension SQLiteStore {
    /// The index blocks of one segment of `records` under `ids`, each with its first piece,
    /// as a commit builds them (`tenbin-bench`'s import floor times building them, and stages
    /// them to time SQLite writing them alone).
    package static func searchIndexBlocks(ids: [Int64], records: [SearchRecord]) -> [(firstPiece: Int64, block: [UInt8])] {
        let segment = SegmentBuilder(ids, pieces: records.map(\.pieces))
        var blocks: [(firstPiece: Int64, block: [UInt8])] = []
        // The closure does not throw.
        try! segment.blocks { blocks.append((Int64(bitPattern: $0), $1)) }
        return blocks
    }
}
