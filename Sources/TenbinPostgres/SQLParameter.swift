/// A value bound to a query's `$n` placeholder.
///
/// Text and integers go in libpq's text format; bytes go in binary format, so a `bytea` value
/// may hold any byte (NUL included) without escaping. Arrays are written as PostgreSQL array
/// literals and need a cast in the query (`$1::bigint[]`, `$2::text[]`).
package enum SQLParameter: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// Text (no NUL: libpq passes text parameters as C strings).
    case text(String)
    /// An integer.
    case int(Int64)
    /// Raw bytes for a `bytea` parameter.
    case bytes([UInt8])

    /// An integer parameter from any integer.
    package static func integer<T: BinaryInteger>(_ value: T) -> SQLParameter { .int(Int64(value)) }

    /// A `bigint[]` literal.
    package static func intArray<S: Sequence>(_ values: S) -> SQLParameter where S.Element: BinaryInteger {
        .text("{" + values.map { String(Int64($0)) }.joined(separator: ",") + "}")
    }

    /// A `text[]` literal, every element quoted.
    package static func textArray<S: Sequence>(_ values: S) -> SQLParameter where S.Element: StringProtocol {
        .text(textArrayLiteral(values))
    }

    /// The `text[]` literal of `values`, every element quoted: as an element of a `text[]`
    /// parameter, cast back per row (`unnest($1::text[]) AS t(h)`, then `h::text[]`), one
    /// array per row — unnest would flatten a two-dimensional array, which must be rectangular.
    package static func textArrayLiteral<S: Sequence>(_ values: S) -> String where S.Element: StringProtocol {
        // Byte by byte: a quote or backslash byte is never part of a longer UTF-8 sequence.
        // (Appending scalar by scalar to a String took 0.8 s for an import batch's 5 MB.)
        var literal: [UInt8] = [UInt8(ascii: "{")]
        for value in values {
            if literal.count > 1 { literal.append(UInt8(ascii: ",")) }
            literal.append(UInt8(ascii: "\""))
            for byte in value.utf8 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { literal.append(UInt8(ascii: "\\")) }
                literal.append(byte)
            }
            literal.append(UInt8(ascii: "\""))
        }
        literal.append(UInt8(ascii: "}"))
        return String(decoding: literal, as: UTF8.self)
    }

    /// UTF-8 text as `bytea` (for text that may contain NUL).
    package static func utf8(_ text: String) -> SQLParameter { .bytes(Array(text.utf8)) }

    /// The value in libpq's terms: bytes (NUL-terminated for text) and the format (0 text, 1 binary).
    var encoded: (bytes: [UInt8], format: Int32)? {
        switch self {
        case .null: nil
        case .text(let text): (Array(text.utf8) + [0], 0)
        case .int(let value): (Array(String(value).utf8) + [0], 0)
        case .bytes(let bytes): (bytes, 1)
        }
    }
}
