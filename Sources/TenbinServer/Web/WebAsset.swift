import TenbinKit

/// A file built into the binary that `GET /static/{name}` serves: the page's style sheet,
/// script, icons and manifest. Each is a real file in `Web/Static/`, compiled in as bytes by SwiftPM
/// (`.embedInCode` in Package.swift), so there is nothing to find on disk at run time.
struct WebAsset: Sendable {
    /// The `Content-Type` it is served with.
    let contentType: String
    /// Its bytes.
    let body: [UInt8]
    /// A short hash of the bytes, put in the page's URLs so a changed file gets a new URL.
    let version: String
    /// The bytes gzipped, made once (nil when too small to gain).
    let gzipped: [UInt8]?

    init(contentType: String, body: [UInt8]) {
        self.contentType = contentType
        self.body = body
        gzipped = Gzip.compress(body)
        // A cache key, not a security measure.
        version = String(String(FNV1a.hash(body), radix: 16).prefix(10))
    }

    /// Every asset by name: `Web/Static/NAME`, as SwiftPM embedded it, and the PNG icon
    /// (``AppIcon``).
    static let all: [String: WebAsset] = [
        "app.css": WebAsset(contentType: "text/css; charset=utf-8", body: PackageResources.app_css),
        "app.js": WebAsset(contentType: "text/javascript; charset=utf-8", body: PackageResources.app_js),
        "icon.svg": WebAsset(contentType: "image/svg+xml", body: PackageResources.icon_svg),
        "manifest.webmanifest": WebAsset(contentType: "application/manifest+json", body: PackageResources.manifest_webmanifest),
        // Drawn and encoded once, when the first page is rendered.
        AppIcon.touchIconName: WebAsset(contentType: "image/png", body: AppIcon.png()),
        "report.js": WebAsset(contentType: "text/javascript; charset=utf-8", body: PackageResources.report_js),
        "report.css": WebAsset(contentType: "text/css; charset=utf-8", body: PackageResources.report_css),
    ]
}
