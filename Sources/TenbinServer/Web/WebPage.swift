import TenbinKit

/// The board as a web page: server-rendered HTML of the first page of posters (reading works
/// without JavaScript) and the stylesheet, script and icon it loads from `/static/`.
///
/// Everything is built into the binary; nothing is read from disk or fetched from elsewhere.
/// The markup has no inline script and no `style` attributes, so it runs under the server's
/// Content-Security-Policy (`default-src 'self'; img-src 'self' blob:; …`). Every string comes
/// from ``WebText`` in the request's ``WebLanguage``.
enum WebPage {
    /// How many posters the page asks the API for at a time (the server's first page should
    /// hold as many).
    static let pageSize = 20

    /// The colour of the browser's bars around the page (light, dark), as the manifest names
    /// the first.
    static let themeColors = (light: "#f6f5f2", dark: "#141311")

    /// The whole page for `GET /`: `posters` is the first page in `order` (the results of
    /// `query` when there is one), `next` the cursor of the page after it (nil at the end).
    /// `maximumUploadBytes`, the server's `--max-upload-mb`, goes to the script, which refuses
    /// two images over it before a byte is sent (a phone on a slow network would otherwise
    /// upload them all to be refused). `postProofBits`, the server's `--post-proof`, tells the
    /// script to prove each post's work in proof-worker.js first (and the form without script
    /// that it cannot post).
    static func board(
        posters: [Poster], order: FeedOrder, query: String?, next: String?, maximumUploadBytes: Int = 25 << 20,
        postProofBits: Int? = nil, text: WebText = WebText(language: .en)
    ) -> String {
        let query = query ?? ""
        var html = documentHead(title: query.isEmpty ? "tenbin" : "\(query) – tenbin", script: true, text: text)
        html += """
            <body data-sort="\(order.rawValue)" data-query="\(html: query)" data-next="\(html: next ?? "")" data-page-size="\(pageSize)" \
            data-max-upload="\(maximumUploadBytes)" data-max-question="\(PosterTextLimits.maximumContentsBytes)" \
            \(postProofBits.map { "data-post-proof=\"\($0)\" data-proof-worker=\"\(assetURL("proof-worker.js"))\" " } ?? "")\
            data-lang="\(text.language.rawValue)" data-strings="\(html: text.scriptTable)">
            \(header(order: order, query: query, text: text))
            <main id="main">
            \(postForm(text, proof: postProofBits != nil))
            <p id="status" class="status" role="status" aria-live="polite">\(statusHTML(count: posters.count, query: query, text: text))</p>
            <ol id="board" class="board" tabindex="-1" aria-label="\(html: query.isEmpty ? text[tabName(order)] : query)">

            """
        for (index, poster) in posters.enumerated() {
            html += card(poster, order: order, text: text, priority: imagePriority(ofCardAt: index))
        }
        html += "</ol>\n"
        if let next {
            let href = "/" + URLQuery.string(["sort": order.rawValue, "q": query, "cursor": next])
            html += "<a id=\"more\" class=\"more\" href=\"\(html: href)\">\(html: text[.morePosters])</a>\n"
        } else {
            html += "<a id=\"more\" class=\"more\" href=\"#\" hidden>\(html: text[.morePosters])</a>\n"
        }
        html += "<p id=\"announcer\" class=\"sr\" aria-live=\"polite\"></p>\n</main>\n</body>\n</html>\n"
        return html
    }

    /// The sticky header: a skip link, the name, search, the language switch and the tabs.
    static func header(order: FeedOrder, query: String, text: WebText) -> String {
        """
        <a class="skip" href="#board">\(html: text[.skipToPosters])</a>
        <header class="top">
        <div class="bar-row">
        <h1 class="brand"><a href="/">tenbin</a></h1>
        <form class="search" role="search" action="/" method="get">
        <input type="search" id="search" name="q" value="\(html: query)" placeholder="\(html: text[.searchPlaceholder])" aria-label="\(html: text[.searchLabel])" enterkeyhint="search">
        <input type="hidden" name="sort" value="\(order.rawValue)">
        </form>
        \(languageSwitch(text))
        </div>
        <nav class="tabs" aria-label="\(html: text[.orderLabel])">
        \(FeedOrder.allCases.map { tab(text[tabName($0)], $0, current: order, query: query) }.joined())
        </nav>
        </header>
        """
    }

    /// The name of an order's tab.
    static func tabName(_ order: FeedOrder) -> WebString {
        switch order {
        case .new: .tabNew
        case .popular: .tabPopular
        case .trending: .tabTrending
        }
    }

    /// A link to each other language, in that language (`GET /language/{code}` sets the cookie
    /// and comes back).
    static func languageSwitch(_ text: WebText) -> String {
        let links = WebLanguage.allCases.filter { $0 != text.language }.map { other in
            "<a class=\"lang\" href=\"/language/\(other.rawValue)\" lang=\"\(other.rawValue)\" hreflang=\"\(other.rawValue)\">\(html: other.ownName)</a>"
        }
        return "<nav class=\"langs\" aria-label=\"\(html: text[.languageLabel])\">\(links.joined(separator: " "))</nav>"
    }

    /// The start of every page, through `</head>`: `<html lang>` in the page's language,
    /// `title` (escaped here), the icons, the manifest, the theme colours, the style sheet and,
    /// when `script`, app.js; then `extra` (markup made safe by the caller).
    static func documentHead(title: String, script: Bool, text: WebText = WebText(language: .en), extra: String = "") -> String {
        """
        <!doctype html>
        <html lang="\(text.language.rawValue)">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <meta name="theme-color" content="\(themeColors.light)" media="(prefers-color-scheme: light)">
        <meta name="theme-color" content="\(themeColors.dark)" media="(prefers-color-scheme: dark)">
        <title>\(html: title)</title>
        <link rel="icon" href="\(assetURL("icon.svg"))" type="image/svg+xml">
        <link rel="apple-touch-icon" href="\(assetURL(AppIcon.touchIconName))">
        <link rel="manifest" href="\(assetURL("manifest.webmanifest"))">
        <link rel="stylesheet" href="\(assetURL("app.css"))">
        <link rel="stylesheet" href="\(assetURL("report.css"))">\(script ? "\n<script src=\"\(assetURL("app.js"))\" defer></script>\n<script src=\"\(assetURL("report.js"))\" defer></script>" : "")
        \(extra)</head>

        """
    }

    /// The built-in file `GET /static/{name}` serves, or nil for any other name.
    static func asset(named name: String) -> WebAsset? {
        WebAsset.all[name]
    }

    /// `/static/NAME?v=VERSION`: the version changes with the content, so a browser may cache
    /// the file for as long as the server lets it.
    static func assetURL(_ name: String) -> String {
        // The names passed here are the constant ones in WebAsset.all.
        "/static/\(name)?v=\(WebAsset.all[name]?.version ?? "0")"
    }

    /// One New/Popular tab: a link that keeps the search query.
    private static func tab(_ title: String, _ order: FeedOrder, current: FeedOrder, query: String) -> String {
        let href = "/" + URLQuery.string(["sort": order == .new ? nil : order.rawValue, "q": query])
        let selected = order == current ? " aria-current=\"page\"" : ""
        return "<a class=\"tab\" href=\"\(html: href)\" data-sort=\"\(order.rawValue)\"\(selected)>\(html: title)</a>"
    }

    /// What the status line says under the form before the script takes over, as HTML: the
    /// query, escaped, in a `<bdi>` so right-to-left text in it cannot reorder the sentence.
    static func statusHTML(count: Int, query: String, text: WebText = WebText(language: .en)) -> String {
        if query.isEmpty { return count == 0 ? text.html(.noPostersYet) : "" }
        let quoted = "<bdi>\(html: query)</bdi>"
        return count == 0 ? text.html(.nothingMatches, quoted) : text.html(.postersMatching, quoted)
    }
}
