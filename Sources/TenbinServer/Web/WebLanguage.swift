/// The languages tenbin's pages speak (the command line and the JSON API keep English).
///
/// A page's language is the one its `tenbin_lang` cookie names (set by the page's language
/// switch, `GET /language/{code}`), else the first of `Accept-Language` that tenbin speaks
/// (by weight, then order), else English.
enum WebLanguage: String, Sendable, CaseIterable {
    case en
    case ja

    /// The cookie the language switch sets.
    static let cookieName = "tenbin_lang"

    /// The language a request asks for (see the type's summary).
    init(_ head: RequestHead) {
        self.init(cookie: head.header("cookie"), acceptLanguage: head.header("accept-language"))
    }

    /// The language named by the `tenbin_lang` cookie in a `Cookie` header, else the best of
    /// an `Accept-Language` header, else English.
    init(cookie: String?, acceptLanguage: String?) {
        if let chosen = cookie.flatMap(Self.fromCookie) {
            self = chosen
        } else {
            self = acceptLanguage.flatMap(Self.fromAcceptLanguage) ?? .en
        }
    }

    /// The `tenbin_lang` cookie's language, when the header has one tenbin speaks.
    static func fromCookie(_ header: String) -> WebLanguage? {
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters == cookieName else { continue }
            return WebLanguage(rawValue: String(parts[1].trimmingCharacters))
        }
        return nil
    }

    /// The language tenbin speaks that `Accept-Language` weighs highest (the earlier on a
    /// tie); nil when it names none (`q=0` refuses one).
    static func fromAcceptLanguage(_ header: String) -> WebLanguage? {
        var best: (language: WebLanguage, weight: Double)? = nil
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let tag = parts.first?.trimmingCharacters.lowercased() else { continue }
            let primary = tag.split(separator: "-").first.map(String.init) ?? tag
            guard let language = WebLanguage(rawValue: primary) else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingCharacters.lowercased() == "q" {
                    weight = Double(String(pair[1].trimmingCharacters)) ?? 0
                }
            }
            if weight > 0, weight > (best?.weight ?? 0) { best = (language, weight) }
        }
        return best?.language
    }

    /// The language's own name, as the switch shows it.
    var ownName: String {
        switch self {
        case .en: "English"
        case .ja: "日本語"
        }
    }
}
