/// Bytes as lowercase hexadecimal text, two digits a byte (a digest's file name, a `bytea`
/// literal for PostgreSQL, a blob literal for `sqlite3`).
package enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `bytes` in hex.
    package static func string(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `text`'s UTF-8 bytes in hex. Not generic, so a caller in another module does not run
    /// the generic version above a byte at a time through the sequence's witness table (an
    /// import into PostgreSQL sends every poster's contents this way: 7.7 % of its CPU so).
    package static func string(utf8Of text: String) -> String {
        var text = text
        return text.withUTF8 { string($0) }
    }

    /// The bytes of lowercase hex text, two digits a byte; nil for anything else.
    package static func bytes(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / 2)
        for index in stride(from: 0, to: characters.count, by: 2) {
            guard let high = value(characters[index]), let low = value(characters[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 48...57: digit - 48
        case 97...102: digit - 87
        default: nil
        }
    }
}
