import TenbinKit

/// The `/admin` moderation page: a login form, then the review queue with a form per poster
/// (restore, hide, remove, with a reason) and the latest audit entries. Server-rendered, no
/// script: every action is a plain same-origin form answered with 303 back here.
extension WebPage {
    /// The login form (`message`, when given, says why it is shown again).
    static func adminLogin(message: String? = nil) -> String {
        var html = documentHead(title: "Moderation – tenbin", script: false)
        html += """
            <body class="admin">
            <main class="admin-main">
            <h1>Moderation</h1>

            """
        if let message { html += "<p class=\"admin-message\" role=\"alert\">\(html: message)</p>\n" }
        html += """
            <form class="admin-login" method="post" action="/admin/login">
            <label>Admin token <input type="password" name="token" autocomplete="current-password" required></label>
            <button type="submit">Log in</button>
            </form>
            <p><a href="/">Back to the board</a></p>
            </main>
            </body>
            </html>

            """
        return html
    }

    /// The review queue and the log.
    static func adminQueue(_ items: [ModerationItem], log: [AuditEntry]) -> String {
        var html = documentHead(title: "Moderation – tenbin", script: false)
        html += """
            <body class="admin">
            <main class="admin-main">
            <header class="admin-header"><h1>Moderation</h1>
            <form method="post" action="/admin/logout"><button type="submit">Log out</button></form></header>
            <h2>Queue (\(items.count))</h2>

            """
        if items.isEmpty { html += "<p>Nothing to review.</p>\n" }
        html += "<ul class=\"admin-queue\">\n"
        for item in items { html += adminItem(item) }
        html += "</ul>\n<h2>Log</h2>\n<ol class=\"admin-log\">\n"
        for entry in log {
            let reason = entry.reason.isEmpty ? "" : ": \(SafeText.html(entry.reason))"
            html +=
                "<li><time datetime=\"\(entry.at)\">\(entry.at)</time> \(html: entry.actor) \(entry.action.rawValue) #\(entry.posterID)\(reason)</li>\n"
        }
        html += """
            </ol>
            <p><a href="/">Back to the board</a></p>
            </main>
            </body>
            </html>

            """
        return html
    }

    private static func adminItem(_ item: ModerationItem) -> String {
        let poster = item.poster
        let id = poster.id
        var html = "<li class=\"admin-item\" id=\"poster-\(id)\">\n<p class=\"admin-state\"><strong>#\(id)</strong> "
        html += item.hiddenSince.map { "hidden since <time datetime=\"\($0)\">\($0)</time>" } ?? "shown"
        html += " · \(Plural.count(item.reports.count, "report"))"
        let reasons = item.reasons.map { "\($0.reason.rawValue) \($0.count)" }.joined(separator: ", ")
        if !reasons.isEmpty { html += " (\(reasons))" }
        html += "</p>\n<div class=\"admin-pair\">"
        for (index, image) in poster.images.prefix(2).enumerated() {
            html +=
                "<a href=\"/blobs/\(image.digest.hex)\"><img src=\"/thumbs/\(image.digest.hex)?w=160\" width=\"\(image.width)\" height=\"\(image.height)\" alt=\"\(html: altText(side: index + 1, poster: poster))\"></a>"
        }
        html += "</div>\n<p class=\"question\" dir=\"auto\">\(SafeText.html(poster.contents))</p>\n"
        if !item.reports.isEmpty {
            html += "<ul class=\"admin-reports\">"
            for report in item.reports {
                let note = report.note.isEmpty ? "" : ": <q dir=\"auto\">\(SafeText.html(report.note))</q>"
                html += "<li>\(report.reason.rawValue)\(note) <time datetime=\"\(report.createdAt)\">\(report.createdAt)</time></li>"
            }
            html += "</ul>\n"
        }
        html += """
            <form class="admin-actions" method="post" action="/admin/posters/\(id)/restore">
            <label>Reason <input name="reason" maxlength="\(Board.maximumModerationReason)" autocomplete="off"></label>
            <button type="submit">Restore</button>
            <button type="submit" formaction="/admin/posters/\(id)/hide">Hide</button>
            <button type="submit" formaction="/admin/posters/\(id)/remove" class="danger">Remove</button>
            </form>
            </li>

            """
        return html
    }
}
