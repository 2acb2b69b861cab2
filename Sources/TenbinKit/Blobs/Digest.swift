import CCrypto

/// A SHA-256 digest, named by its 64 lowercase hex digits.
public struct Digest: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 64 lowercase hexadecimal digits.
    public let hex: String

    /// Accepts exactly 64 lowercase hexadecimal digits.
    public init?(hex: String) {
        // Every page read checks two digests a poster: a plain loop over the contiguous bytes
        // (the usual case) instead of a closure per character.
        guard hex.utf8.count == 64,
            hex.utf8.withContiguousStorageIfAvailable(Self.isLowercaseHex) ?? Self.isLowercaseHex(Array(hex.utf8))
        else { return nil }
        self.hex = hex
    }

    private static func isLowercaseHex<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        for byte in bytes where byte &- 48 >= 10 && byte &- 97 >= 6 { return false }
        return true
    }

    /// The SHA-256 of `bytes`, computed by libcrypto (which uses the CPU's SHA instructions).
    init(of bytes: UnsafeRawBufferPointer) {
        var digest = [UInt8](repeating: 0, count: 32)
        var error = [CChar](repeating: 0, count: 200)
        let status = tb_sha256(bytes.baseAddress, bytes.count, &digest, &error)
        // libcrypto is part of every Debian system (libssl3), as the C library is; without it
        // tenbin is not installed correctly, just as if a linked library were missing.
        guard status == 0 else {
            fatalError(
                "tenbin cannot compute SHA-256: \(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        self.hex = Hex.string(digest)
    }

    /// The SHA-256 of `bytes`.
    public init(of bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { Digest(of: $0) }
    }

    public var description: String { hex }

    public static func < (lhs: Digest, rhs: Digest) -> Bool { lhs.hex < rhs.hex }
}
