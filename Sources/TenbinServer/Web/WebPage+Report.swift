import TenbinKit

/// The small report menu on each card: a `<details>` that opens a form (reason and note). It
/// works without JavaScript (a form POST answered with 303 back to the card); report.js sends
/// it as JSON and says how it went in place, and adds the menu to cards app.js builds later
/// (keep the two in step: report.js reads the same strings from the body's `data-strings`).
extension WebPage {
    /// The reasons, as the menu offers them.
    static let reportReasons: [(ReportReason, WebString)] = [
        (.spam, .reasonSpam), (.abuse, .reasonAbuse), (.illegal, .reasonIllegal), (.other, .reasonOther),
    ]

    /// `<details class="report">…</details>` for the poster with this id, in `text`'s language.
    static func reportMenu(_ id: Int64, text: WebText = WebText(language: .en)) -> String {
        let options = reportReasons.map { "<option value=\"\($0.0.rawValue)\">\(html: text[$0.1])</option>" }.joined()
        return """
            <details class="report"><summary aria-label="\(html: text.format(.reportPoster, String(id)))">\(html: text[.report])</summary>
            <form class="report-form" method="post" action="/api/v1/posters/\(id)/reports">
            <label>\(html: text[.reportReason]) <select name="reason">\(options)</select></label>
            <label>\(html: text[.reportNote]) <input name="note" maxlength="\(Board.maximumReportNote)" autocomplete="off"></label>
            <button type="submit">\(html: text[.sendReport])</button> <span class="report-status" role="status"></span>
            </form></details>

            """
    }
}
