/// A JSON value read by ``JSONValue/parse(_:)``: enough JSON for one manifest line, read
/// straight from bytes (no Foundation), strict about the grammar and about UTF-8. Public for
/// the HTTP server's request bodies; nesting is bounded (64 levels).
package enum JSONValue: Sendable, Equatable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// What is wrong with a JSON text, and where (a 1-based column counted in bytes).
    package struct SyntaxError: KindedError, Equatable {
        /// What is wrong.
        package let reason: String
        /// Where, as a 1-based column counted in bytes.
        package let column: Int

        package var kind: ErrorKind { .invalidInput }

        package var description: String { "\(reason) at column \(column)" }
    }

    /// Parses one complete JSON text; white space may surround it. A key repeated in one
    /// object keeps its last value, unless `rejectingDuplicateKeys` makes it an error.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, rejectingDuplicateKeys: Bool = false) throws(SyntaxError) -> JSONValue {
        var parser = Parser(bytes: bytes, rejectsDuplicateKeys: rejectingDuplicateKeys)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.error("unexpected text after the value") }
        return value
    }

    /// Parses `text` (for tests and small inputs).
    package static func parse(_ text: String) throws(SyntaxError) -> JSONValue {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buffer in Result { () throws(SyntaxError) in try parse(buffer) } }.get()
    }
}

/// A recursive-descent reader over the bytes of one JSON text.
private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    let rejectsDuplicateKeys: Bool
    var index = 0

    /// Deeper nesting than this is refused instead of recursing without bound.
    static let maximumDepth = 64

    func error(_ reason: String) -> JSONValue.SyntaxError {
        JSONValue.SyntaxError(reason: reason, column: index + 1)
    }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipSpace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    mutating func value(depth: Int) throws(JSONValue.SyntaxError) -> JSONValue {
        guard depth < Self.maximumDepth else { throw error("nesting is deeper than \(Self.maximumDepth) levels") }
        switch current {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case let byte? where byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte): return try number()
        case nil: throw error("the text ends where a value was expected")
        default: throw error("unexpected character where a value was expected")
        }
    }

    mutating func literal(_ word: StaticString, _ value: JSONValue) throws(JSONValue.SyntaxError) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count,
            UnsafeBufferPointer(rebasing: bytes[index..<index + count]).elementsEqual(
                UnsafeBufferPointer(start: word.utf8Start, count: count))
        else { throw error("unexpected word where a value was expected") }
        index += count
        return value
    }

    mutating func object(depth: Int) throws(JSONValue.SyntaxError) -> JSONValue {
        index += 1  // "{"
        var fields: [String: JSONValue] = [:]
        skipSpace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(fields)
        }
        while true {
            skipSpace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a quoted key") }
            let keyStart = index
            let key = try string()
            if rejectsDuplicateKeys && fields[key] != nil {
                throw JSONValue.SyntaxError(reason: "the key \"\(SafeText.excerpt(key, scalars: 40))\" appears twice", column: keyStart + 1)
            }
            skipSpace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
            index += 1
            skipSpace()
            fields[key] = try value(depth: depth + 1)
            skipSpace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(fields)
            default: throw error("expected ',' or '}' in an object")
            }
        }
    }

    mutating func array(depth: Int) throws(JSONValue.SyntaxError) -> JSONValue {
        index += 1  // "["
        var items: [JSONValue] = []
        skipSpace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipSpace()
            items.append(try value(depth: depth + 1))
            skipSpace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(items)
            default: throw error("expected ',' or ']' in an array")
            }
        }
    }

    mutating func string() throws(JSONValue.SyntaxError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes, so the bytes between the quotes are the string.
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { throw error("a control character must be escaped in a string") }
            index += 1
        }
        guard let stop = current else { throw error("the text ends inside a string") }
        var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        if stop == UInt8(ascii: "\\") {
            try escapedRest(into: &utf8)
        }
        index += 1  // closing quote
        guard let text = String(validating: utf8, as: UTF8.self) else {
            throw JSONValue.SyntaxError(reason: "a string is not valid UTF-8", column: start)
        }
        return text
    }

    /// Reads the rest of a string that holds escapes, up to (not past) its closing quote.
    mutating func escapedRest(into utf8: inout [UInt8]) throws(JSONValue.SyntaxError) {
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""): return
            case UInt8(ascii: "\\"):
                index += 1
                guard let escape = current else { throw error("the text ends inside an escape") }
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"): utf8.append(contentsOf: try unicodeEscape())
                default:
                    index -= 1
                    throw error("unknown escape")
                }
            case 0..<0x20: throw error("a control character must be escaped in a string")
            default:
                utf8.append(byte)
                index += 1
            }
        }
        throw error("the text ends inside a string")
    }

    /// The UTF-8 of a `\uXXXX` escape (after the `u`), joining a surrogate pair.
    mutating func unicodeEscape() throws(JSONValue.SyntaxError) -> [UInt8] {
        var value = try hex4()
        if (0xD800..<0xDC00).contains(value) {
            guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw error("a high surrogate escape must be followed by a low one")
            }
            index += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw error("a high surrogate escape must be followed by a low one") }
            value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00..<0xE000).contains(value) {
            throw error("a low surrogate escape without a high one")
        }
        // Every value here is a scalar: surrogates were joined or refused above.
        return Array(String(Character(Unicode.Scalar(value)!)).utf8)
    }

    mutating func hex4() throws(JSONValue.SyntaxError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw error("a \\u escape needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: throw error("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    mutating func number() throws(JSONValue.SyntaxError) -> JSONValue {
        let start = index
        func digits(_ parser: inout Parser) -> Int {
            let from = parser.index
            while let byte = parser.current, (0x30...0x39).contains(byte) { parser.index += 1 }
            return parser.index - from
        }
        if current == UInt8(ascii: "-") { index += 1 }
        let whole = digits(&self)
        guard whole > 0 else { throw error("a number needs digits") }
        if whole > 1 && bytes[index - whole] == 0x30 { throw error("a number cannot start with 0") }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw error("a number needs digits after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw error("a number needs digits in its exponent") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        // The grammar above admits only what Double's parser reads.
        return .number(Double(text) ?? .nan)
    }
}
