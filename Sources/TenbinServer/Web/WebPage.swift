import TenbinKit

/// The board as a web page: server-rendered HTML of the first page of posters (reading works
/// without JavaScript) and the stylesheet, script and icon it loads from `/static/`.
///
/// Everything is built into the binary; nothing is read from disk or fetched from elsewhere.
/// The markup has no inline script and no `style` attributes, so it runs under the server's
/// Content-Security-Policy (`default-src 'self'; img-src 'self' blob:; …`).
enum WebPage {
    /// The widths `/thumbs/{digest}?w=N` serves, smallest first; the page's `srcset` lists them.
    static let thumbnailWidths = [160, 320, 640]

    /// How many posters the page asks the API for at a time (the server's first page should
    /// hold as many).
    static let pageSize = 20

    /// The whole page for `GET /`: `posters` is the first page in `order` (the results of
    /// `query` when there is one), `next` the cursor of the page after it (nil at the end).
    /// `maximumUploadBytes`, the server's `--max-upload-mb`, goes to the script, which refuses
    /// two images over it before a byte is sent (a phone on a slow network would otherwise
    /// upload them all to be refused).
    static func board(posters: [Poster], order: FeedOrder, query: String?, next: String?, maximumUploadBytes: Int = 25 << 20)
        -> String
    {
        let query = query ?? ""
        var html = documentHead(title: query.isEmpty ? "tenbin" : "\(query) – tenbin", script: true)
        html += """
            <body data-sort="\(order.rawValue)" data-query="\(html: query)" data-next="\(html: next ?? "")" data-page-size="\(pageSize)" data-max-upload="\(maximumUploadBytes)">
            <header class="top">
            <div class="bar-row">
            <h1 class="brand"><a href="/">tenbin</a></h1>
            <form class="search" role="search" action="/" method="get">
            <input type="search" id="search" name="q" value="\(html: query)" placeholder="Search words or #tags" aria-label="Search posters" autocomplete="off" enterkeyhint="search">
            <input type="hidden" name="sort" value="\(order.rawValue)">
            </form>
            </div>
            <nav class="tabs" aria-label="Order">
            \(tab("New", .new, current: order, query: query))\(tab("Popular", .popular, current: order, query: query))
            </nav>
            </header>
            <main>
            \(postForm)
            <p id="status" class="status" role="status" aria-live="polite">\(statusHTML(count: posters.count, query: query))</p>
            <ol id="board" class="board">

            """
        for poster in posters {
            html += card(poster, order: order)
        }
        html += "</ol>\n"
        if let next {
            let href = "/" + URLQuery.string(["sort": order.rawValue, "q": query, "cursor": next])
            html += "<a id=\"more\" class=\"more\" href=\"\(html: href)\">More posters</a>\n"
        } else {
            html += "<a id=\"more\" class=\"more\" href=\"#\" hidden>More posters</a>\n"
        }
        html += "</main>\n</body>\n</html>\n"
        return html
    }

    /// The start of every page, through `</head>`: `title` (escaped here), the icon, the style
    /// sheet and, when `script`, app.js.
    static func documentHead(title: String, script: Bool) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>\(html: title)</title>
        <link rel="icon" href="\(assetURL("icon.svg"))" type="image/svg+xml">
        <link rel="stylesheet" href="\(assetURL("app.css"))">
        <link rel="stylesheet" href="\(assetURL("report.css"))">\(script ? "\n<script src=\"\(assetURL("app.js"))\" defer></script>\n<script src=\"\(assetURL("report.js"))\" defer></script>" : "")
        </head>

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
        return "<a class=\"tab\" href=\"\(html: href)\" data-sort=\"\(order.rawValue)\"\(selected)>\(title)</a>"
    }

    /// What the status line says under the form before the script takes over, as HTML: the
    /// query, escaped, in a `<bdi>` so right-to-left text in it cannot reorder the sentence.
    static func statusHTML(count: Int, query: String) -> String {
        if query.isEmpty { return count == 0 ? "No posters yet." : "" }
        let quoted = "“<bdi>\(html: query)</bdi>”"
        return count == 0 ? "Nothing matches \(quoted)." : "Posters matching \(quoted)"
    }
}
