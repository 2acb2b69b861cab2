/// Writes JSON text by hand into one growing string, so key order and spacing never change
/// and a page of posters is encoded without intermediate strings.
///
/// Objects are written with ``object(_:)`` and their fields with ``key(_:)`` followed by
/// one value; arrays with ``array(_:layout:_:)``. Separators are `", "` and `": "`, as every
/// documented tenbin shape uses them.
public struct JSONWriter: Sendable {
    /// How an array lays out its items.
    public enum ArrayLayout: Sendable {
        /// `[a, b, c]` on one line.
        case inline
        /// `[` then each item on its own line indented by two spaces, then `]` (`[]` when empty).
        case oneItemPerLine
    }

    /// The JSON written so far.
    public private(set) var text = ""
    /// Fields written in the innermost open object, for placing commas.
    private var fieldsInObject = 0

    /// Creates an empty writer.
    public init() {}

    /// A JSON string literal: quotes, backslashes, control characters (DEL included), U+2028
    /// and U+2029 escaped; every other character (Japanese included) kept as UTF-8.
    public mutating func string(_ value: String) {
        text.append("\"")
        if value.utf8.allSatisfy(Self.isPlain) {
            text.append(value)
        } else {
            for scalar in value.unicodeScalars { appendEscaped(scalar) }
        }
        text.append("\"")
    }

    /// A whole number.
    public mutating func integer(_ value: some BinaryInteger) {
        text.append(String(value))
    }

    /// `true` or `false`.
    public mutating func bool(_ value: Bool) {
        text.append(value ? "true" : "false")
    }

    /// `null`.
    public mutating func null() {
        text.append("null")
    }

    /// An object: `body` writes its fields, each a ``key(_:)`` followed by one value.
    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        text.append("{")
        let outer = fieldsInObject
        fieldsInObject = 0
        body(&self)
        fieldsInObject = outer
        text.append("}")
    }

    /// The next field's key inside ``object(_:)``; its value must follow.
    public mutating func key(_ name: String) {
        if fieldsInObject > 0 { text.append(", ") }
        fieldsInObject += 1
        string(name)
        text.append(": ")
    }

    /// An array of `items`, each written by `element`.
    public mutating func array<Items: Sequence>(
        _ items: Items, layout: ArrayLayout = .inline, _ element: (inout JSONWriter, Items.Element) -> Void
    ) {
        let outer = fieldsInObject
        var first = true
        text.append("[")
        for item in items {
            switch (layout, first) {
            case (.inline, true): break
            case (.inline, false): text.append(", ")
            case (.oneItemPerLine, true): text.append("\n  ")
            case (.oneItemPerLine, false): text.append(",\n  ")
            }
            first = false
            element(&self, item)
        }
        if layout == .oneItemPerLine && !first { text.append("\n") }
        text.append("]")
        fieldsInObject = outer
    }

    /// An array of strings on one line.
    public mutating func strings(_ items: [String]) {
        array(items) { $0.string($1) }
    }

    /// Whether a UTF-8 byte can be copied as it is. 0xE2 leads U+2028 and U+2029 (and the rest
    /// of U+2000–U+2FFF): it sends the string to the scalar-by-scalar path, which escapes just
    /// those two.
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && byte != 0x7F && byte != 0xE2
    }

    private mutating func appendEscaped(_ scalar: Unicode.Scalar) {
        switch scalar {
        case "\"": text.append("\\\"")
        case "\\": text.append("\\\\")
        case "\n": text.append("\\n")
        case "\r": text.append("\\r")
        case "\t": text.append("\\t")
        case "\u{2028}", "\u{2029}": appendUnicodeEscape(scalar.value)
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F {
                appendUnicodeEscape(scalar.value)
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
    }

    private mutating func appendUnicodeEscape(_ value: UInt32) {
        let digits = String(value, radix: 16)
        text.append("\\u" + String(repeating: "0", count: 4 - digits.count) + digits)
    }
}

extension JSONWriter {
    /// A field whose value is a string.
    public mutating func field(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    /// A field whose value is a whole number.
    public mutating func field(_ name: String, _ value: some BinaryInteger) {
        key(name)
        integer(value)
    }

    /// A field whose value is `true` or `false`.
    public mutating func field(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }
}
