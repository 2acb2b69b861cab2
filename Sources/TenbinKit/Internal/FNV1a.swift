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
}
