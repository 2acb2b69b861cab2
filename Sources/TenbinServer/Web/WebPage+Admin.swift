import TenbinKit

/// The `/admin` moderation page: a login form, then the review queue with a form per poster
/// (restore, hide, remove, with a reason) and the latest audit entries. Server-rendered, no
/// script: every action is a plain same-origin form answered with 303 back here. Every string
/// is from ``WebText`` in the request's ``WebLanguage``; what moderators and reporters wrote
/// (reasons, notes) and the log's actions are shown as they are.
extension WebPage {
    /// The login form (`message`, when given, says why it is shown again).
    static func adminLogin(message: String? = nil, text: WebText = WebText(language: .en)) -> String {
        var html = documentHead(title: "\(text[.moderationTitle]) – tenbin", script: false, text: text)
        html += """
            <body class="admin">
            <main class="admin-main">
            <h1>\(html: text[.moderationTitle])</h1>

            """
        if let message { html += "<p class=\"admin-message\" role=\"alert\">\(html: message)</p>\n" }
        html += """
            <form class="admin-login" method="post" action="/admin/login">
            <label>\(html: text[.adminToken]) <input type="password" name="token" autocomplete="current-password" required></label>
            <button type="submit">\(html: text[.logIn])</button>
            </form>
            <p><a href="/">\(html: text[.backToBoard])</a></p>
            </main>
            </body>
            </html>

            """
        return html
    }

    /// The review queue and the log.
    static func adminQueue(_ items: [ModerationItem], log: [AuditEntry], text: WebText = WebText(language: .en)) -> String {
        var html = documentHead(title: "\(text[.moderationTitle]) – tenbin", script: false, text: text)
        html += """
            <body class="admin">
            <main class="admin-main">
            <header class="admin-header"><h1>\(html: text[.moderationTitle])</h1>
            <form method="post" action="/admin/logout"><button type="submit">\(html: text[.logOut])</button></form></header>
            <h2>\(html: text.format(.queueHeading, String(items.count)))</h2>

            """
        if items.isEmpty { html += "<p>\(html: text[.nothingToReview])</p>\n" }
        html += "<ul class=\"admin-queue\">\n"
        for item in items { html += adminItem(item, text: text) }
        html += "</ul>\n<h2>\(html: text[.logHeading])</h2>\n<ol class=\"admin-log\">\n"
        for entry in log {
            let reason = entry.reason.isEmpty ? "" : ": \(SafeText.html(entry.reason))"
            html +=
                "<li><time datetime=\"\(entry.at)\">\(entry.at)</time> \(html: entry.actor) \(entry.action.rawValue) #\(entry.posterID)\(reason)</li>\n"
        }
        html += """
            </ol>
            <p><a href="/">\(html: text[.backToBoard])</a></p>
            </main>
            </body>
            </html>

            """
        return html
    }

    private static func adminItem(_ item: ModerationItem, text: WebText) -> String {
        let poster = item.poster
        let id = poster.id
        var html = "<li class=\"admin-item\" id=\"poster-\(id)\">\n<p class=\"admin-state\"><strong>#\(id)</strong> "
        html += item.hiddenSince.map { text.html(.hiddenSince, "<time datetime=\"\($0)\">\($0)</time>") } ?? text.html(.shown)
        html += " · " + text.html(item.reports.count == 1 ? .oneReport : .reportCount, String(item.reports.count))
        let reasons = item.reasons.map { "\(html: reasonName($0.reason, text)) \($0.count)" }.joined(
            separator: text.language == .ja ? "、" : ", ")
        if !reasons.isEmpty { html += " (\(reasons))" }
        html += "</p>\n<div class=\"admin-pair\">"
        for (index, image) in poster.images.prefix(2).enumerated() {
            html +=
                "<a href=\"/blobs/\(image.digest.hex)\">"
                + thumbnail(image, sizes: adminImageSizes, priority: .lazy, alt: altText(side: index + 1, poster: poster, text: text))
                + "</a>"
        }
        html += "</div>\n<p class=\"question\" dir=\"auto\">\(SafeText.html(poster.contents))</p>\n"
        if !item.reports.isEmpty {
            html += "<ul class=\"admin-reports\">"
            for report in item.reports {
                let note = report.note.isEmpty ? "" : ": <q dir=\"auto\">\(SafeText.html(report.note))</q>"
                html +=
                    "<li>\(html: reasonName(report.reason, text))\(note) <time datetime=\"\(report.createdAt)\">\(report.createdAt)</time></li>"
            }
            html += "</ul>\n"
        }
        html += """
            <form class="admin-actions" method="post" action="/admin/posters/\(id)/restore">
            <label>\(html: text[.moderationReason]) <input name="reason" maxlength="\(Board.maximumModerationReason)" autocomplete="off"></label>
            <button type="submit">\(html: text[.restore])</button>
            <button type="submit" formaction="/admin/posters/\(id)/hide">\(html: text[.hide])</button>
            <button type="submit" formaction="/admin/posters/\(id)/remove" class="danger">\(html: text[.remove])</button>
            </form>
            </li>

            """
        return html
    }

    /// A report reason's name as the report menu offers it.
    private static func reasonName(_ reason: ReportReason, _ text: WebText) -> String {
        reportReasons.first { $0.0 == reason }.map { text[$0.1] } ?? reason.rawValue
    }
}
