#if canImport(TenbinKit)
    import TenbinKit
#endif

extension APIInput {
    /// The vote bodies clients send (`{"side":1,"times":1}`, spaced or not, members in any
    /// order), read without building a JSON tree: an object of only `side` and `times`, each
    /// at most once, valued with plain digits in range. Nil for anything else, which
    /// ``vote(_:)`` then reads with the full parser (and explains what is wrong).
    static func quickVote(_ body: [UInt8]) -> (side: VoteSide, times: Int)? {
        var reader = QuickReader(bytes: body)
        var side: Int?
        var times: Int?
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        repeat {
            guard let key = reader.key(), reader.take(UInt8(ascii: ":")), let value = reader.digits() else { return nil }
            switch key {
            case .side where side == nil: side = value
            case .times where times == nil: times = value
            default: return nil
            }
        } while reader.take(UInt8(ascii: ","))
        guard reader.take(UInt8(ascii: "}")), reader.atEnd else { return nil }
        guard let side, let chosen = VoteSide(rawValue: side) else { return nil }
        let count = times ?? 1
        guard (1...maximumTimes).contains(count) else { return nil }
        return (chosen, count)
    }
}

/// A cursor over a small body that skips JSON white space before each token.
private struct QuickReader {
    enum Key { case side, times }

    let bytes: [UInt8]
    var index = 0

    var atEnd: Bool {
        mutating get {
            skipSpace()
            return index == bytes.count
        }
    }

    private static func continuesNumber(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e")
            || byte == UInt8(ascii: "E")
    }

    mutating func skipSpace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    /// Consumes `byte` (after white space) if it is next.
    mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private static let side = Array(#""side""#.utf8)
    private static let times = Array(#""times""#.utf8)

    /// `"side"` or `"times"`; nil for any other string (escapes included) or token.
    mutating func key() -> Key? {
        skipSpace()
        if has(Self.side) { return .side }
        if has(Self.times) { return .times }
        return nil
    }

    /// Consumes `text` if the bytes at the cursor are exactly it.
    private mutating func has(_ text: [UInt8]) -> Bool {
        guard bytes.count - index >= text.count, bytes[index..<index + text.count].elementsEqual(text) else { return false }
        index += text.count
        return true
    }

    /// One to four digits, without a leading zero, ending where no number could go on
    /// (`1.5`, `1e2` and `-1` are left to the full parser).
    mutating func digits() -> Int? {
        skipSpace()
        let start = index
        var value = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]), index - start < 4 {
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        guard index > start, bytes[start] != UInt8(ascii: "0") || index - start == 1 else { return nil }
        // A digit past the fourth, a fraction or an exponent: not a plain small number.
        if index < bytes.count, Self.continuesNumber(bytes[index]) { return nil }
        return value
    }
}
