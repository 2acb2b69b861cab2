import TenbinKit

/// A file built into the binary that `GET /static/{name}` serves: the page's stylesheet,
/// script and icon. There is no build step: each is a Swift string literal.
struct WebAsset: Sendable {
    /// The `Content-Type` it is served with.
    let contentType: String
    /// Its bytes.
    let body: [UInt8]
    /// A short hash of the bytes, put in the page's URLs so a changed file gets a new URL.
    let version: String
    /// The bytes gzipped, made once (nil when too small to gain).
    let gzipped: [UInt8]?

    init(contentType: String, text: String) {
        self.contentType = contentType
        body = Array(text.utf8)
        gzipped = Gzip.compress(body)
        // A cache key, not a security measure.
        version = String(String(FNV1a.hash(body), radix: 16).prefix(10))
    }

    /// Every asset by name.
    static let all: [String: WebAsset] = [
        "app.css": WebAsset(contentType: "text/css; charset=utf-8", text: style),
        "app.js": WebAsset(contentType: "text/javascript; charset=utf-8", text: script),
        "icon.svg": WebAsset(contentType: "image/svg+xml", text: icon),
    ]

    /// A balance scale (天秤, tenbin) in two colours.
    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">\
        <rect width="64" height="64" rx="14" fill="#1f2937"/>\
        <path d="M32 12v38M16 50h32M12 22h40" stroke="#f9fafb" stroke-width="4" stroke-linecap="round"/>\
        <path d="M12 22l-7 16h14zM52 22l-7 16h14z" fill="none" stroke="#f9fafb" stroke-width="3" stroke-linejoin="round"/>\
        <path d="M5 38a7 5 0 0 0 14 0z" fill="#f97316"/><path d="M45 38a7 5 0 0 0 14 0z" fill="#38bdf8"/>\
        </svg>
        """
}
