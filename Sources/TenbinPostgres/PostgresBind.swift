/// A value bound to a query's placeholder, as libpq sends it (see ``PostgresQuery``).
///
/// Text and integers go in libpq's text format; bytes go in binary format, so a `bytea` value
/// may hold any byte (NUL included) without escaping. Arrays are written as PostgreSQL array
/// literals and need a cast in the query (`::bigint[]`, `::text[]`).
package enum PostgresBind: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// Text (no NUL: libpq passes text parameters as C strings); integers and arrays as their text.
    case text(String)
    /// Raw bytes for a `bytea` parameter.
    case bytes([UInt8])

    /// An integer, as its decimal text.
    static func integer<T: BinaryInteger>(_ value: T) -> PostgresBind { .text(String(value)) }

    /// A `bigint[]` literal.
    static func integerArray<T: BinaryInteger>(_ values: [T]) -> PostgresBind {
        .text("{" + values.map { String($0) }.joined(separator: ",") + "}")
    }

    /// A `text[]` literal, every element quoted.
    static func textArray<S: StringProtocol>(_ values: [S]) -> PostgresBind {
        .text(textArrayLiteral(values))
    }

    /// The `text[]` literal of `values`, every element quoted: as an element of a `text[]`
    /// parameter, cast back per row (`unnest(… ::text[]) AS t(h)`, then `h::text[]`), one
    /// array per row — unnest would flatten a two-dimensional array, which must be rectangular.
    static func textArrayLiteral<S: Sequence>(_ values: S) -> String where S.Element: StringProtocol {
        // In bytes: a quote or backslash byte is never part of a longer UTF-8 sequence, so the
        // runs between them are copied whole. (Appending scalar by scalar to a String took
        // 0.8 s for an import batch's 5 MB; byte by byte, 4 % of an import's CPU.)
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        var literal: [UInt8] = [UInt8(ascii: "{")]
        for value in values {
            if literal.count > 1 { literal.append(UInt8(ascii: ",")) }
            literal.append(quote)
            var text = String(value)
            text.withUTF8 { bytes in
                var run = 0
                for index in bytes.indices where bytes[index] == quote || bytes[index] == backslash {
                    literal.append(contentsOf: bytes[run..<index])
                    literal.append(backslash)
                    run = index
                }
                literal.append(contentsOf: bytes[run...])
            }
            literal.append(quote)
        }
        literal.append(UInt8(ascii: "}"))
        return String(decoding: literal, as: UTF8.self)
    }

    /// The value in libpq's terms: bytes (NUL-terminated for text) and the format (0 text, 1 binary).
    var encoded: (bytes: [UInt8], format: Int32)? {
        switch self {
        case .null: nil
        case .text(let text): (Array(text.utf8) + [0], 0)
        case .bytes(let bytes): (bytes, 1)
        }
    }
}
