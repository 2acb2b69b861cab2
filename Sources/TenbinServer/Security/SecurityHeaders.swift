/// The header fields every answer carries by what it is, added in one place, as the response
/// is handed to libmicrohttpd (so no route, error path or limit answered by the daemon itself
/// can go without them):
///
/// - `X-Content-Type-Options: nosniff` on every answer: a browser never guesses a script or
///   a page out of JSON or an image;
/// - `Cross-Origin-Resource-Policy`: `cross-origin` for images (a poster is shared, and other
///   sites may show its pictures), `same-origin` for everything else (JSON, pages, feeds,
///   scripts), so another site's page cannot pull them in as resources;
/// - on HTML pages, `Cross-Origin-Opener-Policy: same-origin` (a page another site opened
///   cannot reach into the board's window) and a `Permissions-Policy` turning off what the
///   board never uses (camera, microphone, location, payment, USB).
enum SecurityHeaders {
    static let permissions = "camera=(), microphone=(), geolocation=(), payment=(), usb=()"

    /// `response` with the fields it lacks.
    static func complete(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        func add(_ name: String, _ value: String) {
            if response.header(name) == nil { response.headers.append((name, value)) }
        }
        add("X-Content-Type-Options", "nosniff")
        guard let type = response.header("Content-Type") else { return response }
        add("Cross-Origin-Resource-Policy", type.hasPrefixIgnoringASCIICase("image/") ? "cross-origin" : "same-origin")
        if type.hasPrefixIgnoringASCIICase("text/html") {
            add("Cross-Origin-Opener-Policy", "same-origin")
            add("Permissions-Policy", permissions)
        }
        return response
    }
}
