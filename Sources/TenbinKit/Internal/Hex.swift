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
}
