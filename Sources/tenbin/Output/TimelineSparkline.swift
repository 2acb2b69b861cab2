import TenbinKit

/// `tenbin show ID --timeline`: a poster's timeline as two sparklines, one row per side, on
/// one shared scale (the fuller bucket of either side is a full block), so the rows compare.
struct TimelineSparkline {
    /// The buckets, oldest first (``Board/timeline(poster:bucket:)``).
    let buckets: [TimelineBucket]
    let size: TimelineBucketSize
    /// The terminal's width in columns.
    let width: Int

    /// Eight heights of a bar in a cell; a bucket without votes of a side is blank.
    static let levels: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// The cell of `value` votes on a scale whose largest is `largest`.
    static func cell(_ value: Int, largest: Int) -> Character {
        guard value > 0, largest > 0 else { return " " }
        // Rounded up, so one vote next to thousands still shows.
        let level = (value * levels.count + largest - 1) / largest
        return levels[min(levels.count, max(1, level)) - 1]
    }

    /// The lines to print for poster `id`: a heading naming the span, then a row per side with
    /// its total. Buckets between the first and the last that had no votes are blank cells;
    /// when there are more buckets than columns, the latest ones are shown.
    func lines(id: Int64) -> [String] {
        guard let first = buckets.first, let last = buckets.last else { return ["Poster #\(id) · no votes yet."] }
        let step = size.seconds
        let cells = max(10, width - 16)
        let span = (last.start.secondsSince1970 - first.start.secondsSince1970) / step + 1
        let from = span > Int64(cells) ? last.start.secondsSince1970 - Int64(cells - 1) * step : first.start.secondsSince1970
        let count = Int((last.start.secondsSince1970 - from) / step + 1)
        var sides = [[Int]](repeating: [Int](repeating: 0, count: count), count: 2)
        for bucket in buckets where bucket.start.secondsSince1970 >= from {
            // Stored buckets coarser than `size` (older votes, compacted) start on a multiple of
            // it too: each falls in one cell.
            let index = Int((bucket.start.secondsSince1970 - from) / step)
            sides[0][index] += bucket.good1
            sides[1][index] += bucket.good2
        }
        let largest = max(sides[0].max() ?? 0, sides[1].max() ?? 0)
        let totals = [buckets.reduce(0) { $0 + $1.good1 }, buckets.reduce(0) { $0 + $1.good2 }]
        var heading = "Poster #\(id) · votes per \(size.rawValue), \(Timestamp(secondsSince1970: from))"
        if count > 1 { heading += " to \(last.start)" }
        if span > Int64(cells) { heading += " (the latest \(count) of \(span))" }
        return [heading]
            + (0..<2).map { side in
                "  \(side + 1) " + String(sides[side].map { Self.cell($0, largest: largest) }) + "  \(CountText.grouped(totals[side]))"
            }
    }
}
