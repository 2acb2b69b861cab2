import TenbinKit

/// The small report menu on each card: a `<details>` that opens a form (reason and note). It
/// works without JavaScript (a form POST answered with 303 back to the card); report.js sends
/// it as JSON and says how it went in place, and adds the menu to cards app.js builds later
/// (keep the two in step).
extension WebPage {
    /// The reasons, as the menu offers them.
    static let reportReasons: [(ReportReason, String)] = [
        (.spam, "Spam"), (.abuse, "Abusive"), (.illegal, "Illegal"), (.other, "Something else"),
    ]

    /// `<details class="report">…</details>` for the poster with this id.
    static func reportMenu(_ id: Int64) -> String {
        let options = reportReasons.map { "<option value=\"\($0.0.rawValue)\">\($0.1)</option>" }.joined()
        return """
            <details class="report"><summary aria-label="Report poster \(id)">Report</summary>
            <form class="report-form" method="post" action="/api/v1/posters/\(id)/reports">
            <label>Reason <select name="reason">\(options)</select></label>
            <label>Note <input name="note" maxlength="\(Board.maximumReportNote)" autocomplete="off"></label>
            <button type="submit">Send report</button> <span class="report-status" role="status"></span>
            </form></details>

            """
    }
}
