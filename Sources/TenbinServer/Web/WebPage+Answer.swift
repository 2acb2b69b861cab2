import TenbinKit

/// What a browser gets when a page fails (a poster page that is not there, a navigation to
/// nothing) or the page's forms are sent without JavaScript (a vote tapped before
/// app.js arrived on a slow network, or a browser that runs none): a redirect back to the board
/// after success, and a short page naming the problem after a failure, instead of JSON.
extension WebPage {
    /// A page for a failed form: the status, the error's message and a link back, in the
    /// page's language (the message itself, the API's, stays English, with the form's field
    /// names said as the form shows them).
    static func errorPage(_ error: APIError, back: String, text: WebText = WebText(language: .en)) -> String {
        documentHead(title: "\(error.status) – tenbin", script: false, text: text) + """
            <body>
            <main class="problem">
            <h1>\(html: heading(error.status, text: text))</h1>
            <p class="message" dir="auto">\(html: fieldNamesShown(error.message, text: text))</p>
            <p><a href="\(html: back)">\(html: text[.backToBoard])</a></p>
            </main>
            </body>
            </html>

            """
    }

    /// `message` with the form's field names `image1` and `image2` said as the form labels
    /// them ("Left image", "Right image").
    static func fieldNamesShown(_ message: String, text: WebText) -> String {
        message.replacing("image1", with: text[.leftImage]).replacing("image2", with: text[.rightImage])
    }

    /// An error page's heading: what a reader needs first.
    private static func heading(_ status: Int, text: WebText) -> String {
        switch status {
        case 404: text[.notFoundTitle]
        case 410: text[.goneTitle]
        default: text[.problemTitle]
        }
    }
}

extension RequestHead {
    /// Whether the request is a browser's own form submission (a navigation, answered with a
    /// page), not a script's: its `Accept` asks for HTML before JSON. Scripts send
    /// `application/json` (app.js) or `*/*` (curl).
    var wantsPage: Bool {
        guard let accept = header("accept")?.lowercased() else { return false }
        guard let html = accept.firstRange(of: "text/html") else { return false }
        guard let json = accept.firstRange(of: "application/json") else { return true }
        return html.lowerBound < json.lowerBound
    }

    /// Where to send the browser back to: the path and query of the page the form was on
    /// (its `Referer`, already checked to be this server by ``RequestPolicy/checkSameOrigin``),
    /// or the board. Only what a browser leaves unencoded in a URL is taken, so nothing odd
    /// reaches `Location`.
    var returnPath: String {
        guard let referer = header("referer"), let authority = RequestPolicy.authority(of: referer) else { return "/" }
        guard let start = referer.firstRange(of: authority)?.upperBound else { return "/" }
        var path = String(referer[start...].prefix { $0 != "#" })
        if path.isEmpty { path = "/" }
        guard path.hasPrefix("/"), !path.hasPrefix("//"), path.utf8.count <= 2048,
            path.utf8.allSatisfy(Self.isURLByte)
        else { return "/" }
        return path
    }

    /// Whether a byte may stand in a URL as a browser sends it (RFC 3986's unreserved and
    /// reserved characters and `%`); a browser percent-encodes everything else.
    private static func isURLByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "-._~:/?[]@!$&'()*+,;=%".utf8.contains(byte)
        }
    }
}

extension HTTPResponse {
    /// `303 See Other` to `location` (a path on this server).
    static func seeOther(_ location: String) -> HTTPResponse {
        HTTPResponse(status: 303, headers: [("Location", location), ("Cache-Control", "no-store")])
    }

    /// A failed form's answer as a page (see ``WebPage/errorPage(_:back:text:)``), with the
    /// error's status and header fields.
    static func errorPage(_ error: APIError, back: String, language: WebLanguage = .en) -> HTTPResponse {
        var response = HTTPResponse(
            status: error.status,
            headers: Application.htmlHeaders + error.headers.map { ($0.name, $0.value) },
            body: .bytes(Array(WebPage.errorPage(error, back: back, text: WebText(language: language)).utf8)))
        response.cause = error.cause
        return response
    }
}
