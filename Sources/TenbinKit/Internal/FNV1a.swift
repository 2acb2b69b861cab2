/// FNV-1a, 64 bits: a fast, stable hash of bytes for names and keys (a prepared statement's
/// name, an asset's version, SQLite's identity index), never for security.
///
/// Stable by definition: schema 5 of the SQLite store keeps these values on disk, so the
/// function must never change.
package enum FNV1a {
    /// The hash of `bytes`.
    package static func hash<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return hash
    }

    /// The hash of `text`'s UTF-8 bytes. Not generic, so a caller in another module does not
    /// run the generic version above a byte at a time through the sequence's witness table
    /// (a prepared statement's name, hashed from its text on every query: 10 % of a PostgreSQL
    /// search's client time that way).
    package static func hash(_ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { hash($0) }
    }
}
