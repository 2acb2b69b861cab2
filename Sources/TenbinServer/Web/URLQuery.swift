/// Percent-encoding for the page's own links (tabs, hashtags, the next page).
enum URLQuery {
    /// `text` encoded for use as one value in `?name=value` (RFC 3986 unreserved characters
    /// kept, every other byte of its UTF-8 as `%XX`).
    static func value(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
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
