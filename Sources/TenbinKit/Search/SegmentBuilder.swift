/// A segment built in memory: for each piece, the ids of the posters holding it. Pieces go
/// to slots through a table of their own (open addressing, a multiplicative hash): a batch
/// of 20,000 posters adds about two million.
package struct SegmentBuilder {
    private var keys: [UInt64]
    private var slotOfKey: [Int32]
    private var mask: Int
    /// Each slot's piece, in order of first appearance.
    private var pieces: [UInt64] = []
    /// Every posting, as its slot and its id, in the order added.
    private var slots: [Int32] = []
    private var ids: [Int64] = []
    /// How many posters it holds.
    package let posters: Int

    /// The segment of posters `ids`, each with its pieces (each once:
    /// ``SearchGrams/pieces(forKey:)``). The piece table starts at twice 8 a poster (a batch
    /// of 20,000 holds about 100,000 distinct pieces) and the postings are reserved once.
    package init(_ ids: [Int64], pieces: [[UInt64]]) {
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

    package var isEmpty: Bool { slots.isEmpty }

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
    package func blocks(_ body: @escaping (UInt64, [UInt8]) throws -> Void) throws {
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
