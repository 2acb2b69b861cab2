import TenbinKit

/// The stable `--json` shapes, written by hand so key order and spacing never change.
enum JSON {
    /// A JSON string literal: quotes, backslashes and control characters escaped; other
    /// characters (Japanese included) kept as UTF-8.
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{2028}", "\u{2029}": out += "\\u\(hex4(scalar.value))"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7f {
                    out += "\\u\(hex4(scalar.value))"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// `{"key": value, …}` from already-encoded values, in the given order.
    static func object(_ fields: KeyValuePairs<String, String>) -> String {
        "{" + fields.map { "\(string($0.key)): \($0.value)" }.joined(separator: ", ") + "}"
    }

    static func array(_ items: [String]) -> String {
        "[" + items.joined(separator: ", ") + "]"
    }

    /// A poster object, exactly as the README documents it.
    static func poster(_ poster: Poster) -> String {
        object([
            "id": String(poster.id),
            "contents": string(poster.contents),
            "hashtags": array(poster.hashtags.map(string)),
            "good1": String(poster.good1),
            "good2": String(poster.good2),
            "createdAt": string(poster.createdAt.description),
            "images": array(poster.images.map(image)),
        ])
    }

    static func image(_ image: StoredImage) -> String {
        object([
            "digest": string(image.digest.hex),
            "format": string(image.format.rawValue),
            "width": String(image.width),
            "height": String(image.height),
            "bytes": String(image.bytes),
        ])
    }

    /// An array of posters, one per line.
    static func posters(_ posters: [Poster]) -> String {
        posters.isEmpty ? "[]" : "[\n" + posters.map { "  " + poster($0) }.joined(separator: ",\n") + "\n]"
    }

    /// The `import --json` report: counts, then one object per poster (`id` only when there
    /// is one, `error` only for failures).
    static func importReport(_ report: ImportReport) -> String {
        let items = report.items.map { item in
            var fields = "{\"source\": \(string(item.source)), \"status\": \(string(item.status.rawValue))"
            if let id = item.id { fields += ", \"id\": \(id)" }
            if let error = item.error { fields += ", \"error\": \(string(error))" }
            return fields + "}"
        }
        let list = items.isEmpty ? "[]" : "[\n" + items.map { "  " + $0 }.joined(separator: ",\n") + "\n]"
        return "{\"imported\": \(report.imported), \"skipped\": \(report.skipped), \"failed\": \(report.failed), \"items\": \(list)}"
    }
}
