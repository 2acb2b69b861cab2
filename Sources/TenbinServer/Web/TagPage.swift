import TenbinKit

/// A hashtag's page, `/t/TAG`: its posters trending first (the board's cards, voting through
/// their forms), how many there are and their votes, and a chart of the votes they received
/// per day, drawn on the server as SVG. Works without JavaScript; app.js is not loaded (its
/// board would replace these posters with a search's).
struct TagPage: Sendable {
    let summary: TagSummary
    var text = WebText(language: .en)

    /// The path of a tag's page, its cursor after when given.
    static func path(_ tag: String, cursor: String? = nil) -> String {
        "/t/" + URLQuery.value(tag) + URLQuery.string(["cursor": cursor])
    }

    /// The whole page.
    var html: String {
        let tag = summary.tag
        var html = WebPage.documentHead(title: text.format(.tagTitle, tag) + " – tenbin", script: false, text: text)
        html += """
            <body class="tag-page" data-lang="\(text.language.rawValue)">
            \(WebPage.header(order: .trending, query: "", text: text))
            <main id="main">
            <h2 class="tag-title">\(html: "#" + tag)</h2>
            <p class="status">\(html: text.format(summary.posterCount == 1 ? .tagTotalsOne : .tagTotals, String(summary.posterCount), String(summary.totalVotes)))</p>
            \(chart)
            <ol id="board" class="board" tabindex="-1" aria-label="\(html: "#" + tag)">

            """
        for poster in summary.page.posters { html += WebPage.card(poster, order: .trending, text: text) }
        html += "</ol>\n"
        if summary.posterCount == 0 { html += "<p class=\"status\">\(html: text[.tagEmpty])</p>\n" }
        if let next = summary.page.next {
            html +=
                "<p><a id=\"more\" class=\"more\" href=\"\(html: Self.path(tag, cursor: next.encoded))\">\(html: text[.morePosters])</a></p>\n"
        }
        html += """
            <p class="back"><a href="/">\(html: text[.allPosters])</a></p>
            </main>
            </body>
            </html>

            """
        return html
    }

    /// The tag's votes per day as bars (both sides together), at most the last 60 days, in an
    /// SVG with a title naming what it shows; nothing without votes.
    var chart: String {
        let days = summary.timeline.suffix(60)
        guard let highest = days.map({ $0.good1 + $0.good2 }).max(), highest > 0 else { return "" }
        let (width, height, bar) = (300, 60, 300 / max(days.count, 1))
        var bars = ""
        for (index, day) in days.enumerated() {
            let total = day.good1 + day.good2
            let barHeight = max(1, total * height / highest)
            bars +=
                "<rect x=\"\(index * bar)\" y=\"\(height - barHeight)\" width=\"\(max(1, bar - 1))\" height=\"\(barHeight)\" fill=\"currentColor\"><title>\(html: String(day.start.description.prefix(10))): \(total)</title></rect>"
        }
        let label = text.format(.tagTimeline, summary.tag)
        return """
            <figure class="tag-chart"><svg role="img" aria-label="\(html: label)" viewBox="0 0 \(width) \(height)" width="\(width)" height="\(height)"><title>\(html: label)</title>\(bars)</svg></figure>
            """
    }
}
