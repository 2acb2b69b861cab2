/// Text from a user made safe to place in HTML: the HTML sibling of the terminal-safe text
/// the command line prints.
///
/// Every piece of user text the web page renders on the server (questions, hashtags, the
/// search query, cursors) goes through ``init(_:)``, the one escaping function. It escapes the
/// five characters that can end a text node or an attribute value (`&`, `<`, `>`, `"`, `'`),
/// so the result is safe both between tags and inside a quoted attribute.
struct HTMLText: Sendable, Hashable, CustomStringConvertible {
    /// The escaped text, ready to be placed in markup.
    let html: String

    /// Escapes `text` for use as element content or as a quoted attribute value.
    init(_ text: String) {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            // NUL and other C0 controls except tab and newlines cannot appear in HTML text.
            case "\u{0}"..."\u{8}", "\u{B}", "\u{C}", "\u{E}"..."\u{1F}", "\u{7F}": out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        html = out
    }

    var description: String { html }
}

extension String.StringInterpolation {
    /// `"\(html: text)"`: interpolates user text escaped for HTML.
    mutating func appendInterpolation(html text: String) {
        appendLiteral(HTMLText(text).html)
    }
}

/// Percent-encoding for a query-string value (RFC 3986 unreserved characters kept).
enum URLQuery {
    /// `text` encoded for use as one value in `?name=value`.
    static func value(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out += "%"
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return out
    }

    /// `?a=1&b=2` from the pairs whose value is not nil or empty; "" when none remain.
    static func string(_ pairs: KeyValuePairs<String, String?>) -> String {
        let parts = pairs.compactMap { pair -> String? in
            guard let value = pair.value, !value.isEmpty else { return nil }
            return "\(pair.key)=\(Self.value(value))"
        }
        return parts.isEmpty ? "" : "?" + parts.joined(separator: "&")
    }
}
