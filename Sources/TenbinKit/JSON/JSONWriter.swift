/// Writes JSON text by hand into one growing byte buffer, so key order and spacing never
/// change and a page of posters is encoded without intermediate strings.
///
/// Objects are written with ``object(_:)`` and their fields with ``key(_:)`` followed by
/// one value; arrays with ``array(_:layout:_:)``. Separators are `", "` and `": "`, as every
/// documented tenbin shape uses them.
package struct JSONWriter: Sendable {
    /// How an array lays out its items.
    package enum ArrayLayout: Sendable {
        /// `[a, b, c]` on one line.
        case inline
        /// `[` then each item on its own line indented by two spaces, then `]` (`[]` when empty).
        case oneItemPerLine
    }

    /// The JSON written so far, as UTF-8 bytes.
    package private(set) var bytes: [UInt8] = []
    /// Fields written in the innermost open object, for placing commas.
    private var fieldsInObject = 0

    /// Creates an empty writer; `capacity` bytes are reserved up front.
    package init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// The JSON written so far, as text.
    package var text: String { String(decoding: bytes, as: UTF8.self) }

    /// A JSON string literal: quotes, backslashes, control characters (DEL included), U+2028
    /// and U+2029 escaped; every other character (Japanese included) kept as UTF-8.
    package mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        // Native strings are contiguous UTF-8: scanned and copied in one pass each.
        let copied = value.withUTF8 { utf8 -> Bool in
            guard utf8.allSatisfy(Self.isPlain) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if !copied {
            for scalar in value.unicodeScalars { appendEscaped(scalar) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A whole number.
    package mutating func integer(_ value: some BinaryInteger) {
        if let small = Int64(exactly: value) {
            appendDecimal(small)
        } else {
            raw(String(value))
        }
    }

    /// `true` or `false`.
    package mutating func bool(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    /// `null`.
    package mutating func null() {
        raw("null")
    }

    /// An object: `body` writes its fields, each a ``key(_:)`` followed by one value.
    package mutating func object(_ body: (inout JSONWriter) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        let outer = fieldsInObject
        fieldsInObject = 0
        body(&self)
        fieldsInObject = outer
        bytes.append(UInt8(ascii: "}"))
    }

    /// The next field's key inside ``object(_:)``; its value must follow.
    package mutating func key(_ name: String) {
        if fieldsInObject > 0 { raw(", ") }
        fieldsInObject += 1
        string(name)
        raw(": ")
    }

    /// An array of `items`, each written by `element`.
    package mutating func array<Items: Sequence>(
        _ items: Items, layout: ArrayLayout = .inline, _ element: (inout JSONWriter, Items.Element) -> Void
    ) {
        let outer = fieldsInObject
        var first = true
        bytes.append(UInt8(ascii: "["))
        for item in items {
            switch (layout, first) {
            case (.inline, true): break
            case (.inline, false): raw(", ")
            case (.oneItemPerLine, true): raw("\n  ")
            case (.oneItemPerLine, false): raw(",\n  ")
            }
            first = false
            element(&self, item)
        }
        if layout == .oneItemPerLine && !first { bytes.append(UInt8(ascii: "\n")) }
        bytes.append(UInt8(ascii: "]"))
        fieldsInObject = outer
    }

    /// An array of strings on one line.
    package mutating func strings(_ items: [String]) {
        array(items) { $0.string($1) }
    }

    /// Appends `text` as it is: JSON punctuation and literals the writer itself produces.
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends text that is known to need no escaping (digits, ISO 8601 times).
    mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends one byte of JSON punctuation.
    mutating func appendByte(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Lets `body` append bytes that need no escaping.
    mutating func appendBytes(_ body: (inout [UInt8]) -> Void) {
        body(&bytes)
    }

    /// Appends `value` in decimal without building a string.
    mutating func appendDecimal(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude  // fits in UInt64 even for Int64.min
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Whether a UTF-8 byte can be copied as it is. 0xE2 leads U+2028 and U+2029 (and the rest
    /// of U+2000–U+2FFF): it sends the string to the scalar-by-scalar path, which escapes just
    /// those two.
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && byte != 0x7F && byte != 0xE2
    }

    private mutating func appendEscaped(_ scalar: Unicode.Scalar) {
        switch scalar {
        case "\"": raw("\\\"")
        case "\\": raw("\\\\")
        case "\n": raw("\\n")
        case "\r": raw("\\r")
        case "\t": raw("\\t")
        case "\u{2028}", "\u{2029}": appendUnicodeEscape(scalar.value)
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F {
                appendUnicodeEscape(scalar.value)
            } else {
                bytes.append(contentsOf: UTF8.encode(scalar)!)  // every Unicode scalar has a UTF-8 encoding
            }
        }
    }

    private mutating func appendUnicodeEscape(_ value: UInt32) {
        let digits = String(value, radix: 16)
        raw("\\u" + String(repeating: "0", count: 4 - digits.count) + digits)
    }
}

extension JSONWriter {
    /// A field whose value is a string.
    package mutating func field(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    /// A field whose value is a whole number.
    package mutating func field(_ name: String, _ value: some BinaryInteger) {
        key(name)
        integer(value)
    }

    /// A field whose value is `true` or `false`.
    package mutating func field(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }
}
