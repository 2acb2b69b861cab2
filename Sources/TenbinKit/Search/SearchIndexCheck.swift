/// What `tenbin check` finds wrong with the search index's tables, the same on every backend
/// (each reads its own rows and hands them here): merges naming segments that do not exist,
/// and blocks that belong to no segment, cannot be read, or hold a poster above their
/// segment's top — a search reads a segment only once below its top (``TermCursor``), so such
/// a poster would be missed.
package struct SearchIndexCheck {
    private let tops: [Int64: Int64]
    private let unknownInMerges: [Int64]
    private var damaged = 0
    private var example = ""

    /// A check of an index whose segments have `segmentTops` (by id), and whose merges name
    /// `mergeSegments` (sources and targets).
    package init(segmentTops: [Int64: Int64], mergeSegments: [Int64]) {
        tops = segmentTops
        unknownInMerges = Set(mergeSegments.filter { segmentTops[$0] == nil }).sorted()
    }

    /// Checks one block of `segment`, given its first piece.
    package mutating func check(segment: Int64, firstPiece: Int64, block: [UInt8]) {
        var listsRead = true
        var highest: Int64 = 0
        let blockRead = PostingBlock.forEach(block, firstPiece: UInt64(bitPattern: firstPiece)) { _, list in
            let ids = PostingCoding.decode(block, list)
            listsRead = ids != nil
            highest = max(highest, ids?.first ?? 0)
            return listsRead
        }
        let fault: String
        if let top = tops[segment] {
            if !(blockRead && listsRead) {
                fault = "its lists of posters cannot be read"
            } else if highest > top {
                fault = "it holds poster \(highest), above its segment's top \(top)"
            } else {
                return
            }
        } else {
            fault = "it belongs to no segment"
        }
        damaged += 1
        if damaged == 1 { example = "segment \(segment), piece \(firstPiece): \(fault)" }
    }

    /// What was found, a line for the merges and one for the blocks.
    package var problems: [String] {
        var problems: [String] = []
        if !unknownInMerges.isEmpty {
            let ids = unknownInMerges.map(String.init).joined(separator: ", ")
            problems.append(
                "the search index is damaged (a merge names segments that do not exist: \(ids)); `tenbin check --repair` rebuilds it")
        }
        if damaged > 0 {
            problems.append(
                "the search index is damaged (\(damaged) \(damaged == 1 ? "entry" : "entries"), such as \(example)); `tenbin check --repair` rebuilds it"
            )
        }
        return problems
    }
}
