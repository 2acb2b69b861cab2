import TenbinKit

/// A poster's votes over time as a small inline SVG drawn by the server (so it shows without
/// JavaScript): each side's running total as a line, side 1 solid in its colour, side 2
/// dashed in its own (told apart without colour too), from the first vote to now, with a
/// caption that says the same in words. app.js redraws the lines from the figure's data when a
/// live vote arrives (`extendTrend`), and draws the compact form on board cards from the API's
/// timeline once a card scrolls into view; keep the geometry in step with it.
struct TimelineChart: Sendable {
    /// The running totals after each bucket, oldest first: seconds since 1970 and each side's
    /// total then. The first point is the first bucket's start, at zero.
    var points: [(time: Int64, good1: Int, good2: Int)]
    /// Votes for each side in the 24 hours before `now`.
    var recent: (good1: Int, good2: Int)
    /// When the chart ends.
    var now: Int64

    /// The viewBox's size: stretched to the figure's width by CSS, its strokes kept thin.
    static let width = 320
    static let height = 64

    /// The chart of `buckets` (oldest first, as ``Board/timeline(poster:bucket:)`` returns
    /// them) up to `now`.
    init(_ buckets: [TimelineBucket], size: TimelineBucketSize, now: Timestamp) {
        self.now = now.secondsSince1970
        var points: [(time: Int64, good1: Int, good2: Int)] = []
        var recent = (good1: 0, good2: 0)
        var totals = (good1: 0, good2: 0)
        for bucket in buckets {
            let start = bucket.start.secondsSince1970
            if points.isEmpty { points.append((start, 0, 0)) }
            totals = (totals.good1 + bucket.good1, totals.good2 + bucket.good2)
            points.append((min(start + size.seconds, self.now), totals.good1, totals.good2))
            // A bucket that began within the day counts whole: its votes are at most a bucket older.
            if start + size.seconds > self.now - 86_400 { recent = (recent.good1 + bucket.good1, recent.good2 + bucket.good2) }
        }
        self.points = points
        self.recent = recent
    }

    /// Each side's line as SVG `points`, time across and votes up, scaled to the viewBox.
    func lines() -> (String, String) {
        guard let first = points.first else { return ("", "") }
        let span = Double(max(now - first.time, 1))
        let top = Double(max(points.map { max($0.good1, $0.good2) }.max() ?? 1, 1))
        func line(_ value: (Int64, Int, Int) -> Int) -> String {
            var text = points.map { point in
                let x = Double(point.time - first.time) / span * Double(Self.width)
                let y = Double(Self.height) - Double(value(point.time, point.good1, point.good2)) / top * Double(Self.height - 4) - 2
                return Self.number(x) + "," + Self.number(y)
            }
            if let last = points.last, last.time < now {
                // Flat from the last vote to now.
                let y = Double(Self.height) - Double(value(last.time, last.good1, last.good2)) / top * Double(Self.height - 4) - 2
                text.append("\(Self.width)," + Self.number(y))
            }
            return text.joined(separator: " ")
        }
        return (line { _, good1, _ in good1 }, line { _, _, good2 in good2 })
    }

    /// One decimal place at most, as SVG takes it.
    private static func number(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 ? String(tenths / 10) : "\(tenths / 10).\(abs(tenths % 10))"
    }

    /// The caption: totals since the first vote and the last 24 hours' votes per side.
    func summary(_ text: WebText) -> String {
        guard let first = points.first, let last = points.last else { return text[.noVotes] }
        let start = Timestamp(secondsSince1970: first.time).description  // 2026-12-05T01:00:00Z
        return text.format(
            .trendSummary, start.prefix(10) + " " + start.dropFirst(11).prefix(5) + " UTC", String(last.good1), String(last.good2),
            String(recent.good1), String(recent.good2))
    }

    /// `<figure>` with the SVG (named by its caption, a role of `img`) and the caption. Its
    /// data attributes carry the points for app.js. Before the first vote it is hidden
    /// (`empty`: the card says there are none), until a live vote draws it.
    func html(posterID: Int64, text: WebText) -> String {
        let (line1, line2) = lines()
        let times = points.map { String($0.time) }.joined(separator: ",")
        let good1 = points.map { String($0.good1) }.joined(separator: ",")
        let good2 = points.map { String($0.good2) }.joined(separator: ",")
        return """
            <figure class="trend\(points.isEmpty ? " empty" : "")" data-times="\(times)" data-good1="\(good1)" data-good2="\(good2)" \
            data-recent1="\(recent.good1)" data-recent2="\(recent.good2)" data-now="\(now)">\
            <svg viewBox="0 0 \(Self.width) \(Self.height)" preserveAspectRatio="none" role="img" aria-labelledby="trend-\(posterID)">\
            <polyline class="line1" vector-effect="non-scaling-stroke" points="\(line1)"/>\
            <polyline class="line2" vector-effect="non-scaling-stroke" points="\(line2)"/></svg>\
            <figcaption id="trend-\(posterID)"><span class="trend-title">\(html: text[.trendTitle])</span> \
            <span class="trend-summary">\(html: summary(text))</span></figcaption></figure>

            """
    }
}
