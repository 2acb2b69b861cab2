import CCrypto

/// A SHA-256 digest, named by its 64 lowercase hex digits.
public struct Digest: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 64 lowercase hexadecimal digits.
    public let hex: String

    /// Accepts exactly 64 lowercase hexadecimal digits.
    public init?(hex: String) {
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { return nil }
        self.hex = hex
    }

    /// The SHA-256 of `bytes`, computed by libcrypto (which uses the CPU's SHA instructions).
    init(of bytes: UnsafeRawBufferPointer) {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = EVP_Digest(bytes.baseAddress, bytes.count, &digest, &length, EVP_sha256(), nil)
        // EVP_Digest with the built-in SHA-256 and no engine fails only when memory runs out.
        precondition(ok == 1 && length == 32, "libcrypto could not compute SHA-256")
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(64)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        self.hex = String(decoding: text, as: UTF8.self)
    }

    /// The SHA-256 of `bytes`.
    public init(of bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { Digest(of: $0) }
    }

    public var description: String { hex }

    public static func < (lhs: Digest, rhs: Digest) -> Bool { lhs.hex < rhs.hex }
}
