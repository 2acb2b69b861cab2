/// Proof of work for posting (`tenbin serve --post-proof BITS`): the server hands out a signed,
/// expiring challenge; a client finds a nonce such that the SHA-256 of `CHALLENGE:NONCE` begins
/// with at least `bits` zero bits, and sends that text with its post. Checking costs one HMAC
/// and one hash; finding costs about 2^bits hashes. Single use is the store's part
/// (``Board/spendPostProof(_:expiresAt:)``).
///
/// A challenge reads `1.EXPIRES.BITS.RANDOM.MAC`: the format's version, the Unix time it
/// expires at, the bits it asks for, 16 random bytes in hex (its identity when spent) and the
/// HMAC-SHA-256, in hex, of everything before the last dot under the board's key.
public struct PostProof: Sendable, Equatable {
    /// The challenge's identity: its random part.
    public let id: String
    /// When the challenge expires.
    public let expiresAt: Timestamp

    /// Why a proof is refused.
    public enum Refusal: Error, Sendable, Equatable {
        /// Not `CHALLENGE:NONCE`, a challenge this server did not sign, or too little work.
        case invalid(String)
        /// A challenge past its time.
        case expired
    }

    /// A proof already checked (a store's tests make these directly).
    init(id: String, expiresAt: Timestamp) {
        self.id = id
        self.expiresAt = expiresAt
    }

    /// A new challenge asking for `bits`, signed with `key`, expiring `lifetime` seconds after
    /// `now`.
    public static func challenge(key: [UInt8], bits: Int, now: Timestamp, lifetime: Int64) -> String {
        var random = SystemRandomNumberGenerator()
        let nonce = Hex.string((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) })
        let signed = "1.\(now.secondsSince1970 + lifetime).\(bits).\(nonce)"
        return signed + "." + Hex.string(HMAC.sha256(key: key, message: Array(signed.utf8)))
    }

    /// Checks `proof` (`CHALLENGE:NONCE`) against `key`: signed by it, asking for at least
    /// `bits`, not expired at `now`, and its hash with enough leading zero bits.
    public init(checking proof: String, key: [UInt8], bits: Int, now: Timestamp) throws(Refusal) {
        let halves = proof.split(separator: ":", omittingEmptySubsequences: false)
        guard halves.count == 2, (1...64).contains(halves[1].utf8.count) else {
            throw .invalid("a proof is CHALLENGE:NONCE, the nonce 1 to 64 characters")
        }
        let parts = halves[0].split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "1", let expires = Int64(parts[1]), let asked = Int(parts[2]), parts[3].utf8.count == 32
        else { throw .invalid("the challenge is not one this server issues") }
        let signed = Array(halves[0].utf8.dropLast(parts[4].utf8.count + 1))
        // Compared in constant time: the MAC is the secret a forger would probe for.
        let expected = Array(Hex.string(HMAC.sha256(key: key, message: signed)).utf8)
        guard HMAC.constantTimeEqual(expected, Array(parts[4].utf8)) else {
            throw .invalid("the challenge was not signed by this board")
        }
        guard asked >= bits else { throw .invalid("the challenge asks for \(asked) bits; this server wants \(bits)") }
        guard now.secondsSince1970 < expires else { throw .expired }
        guard Self.leadingZeroBits(Digest(of: Array(proof.utf8))) >= asked else {
            throw .invalid("the nonce does not give a hash with \(asked) leading zero bits")
        }
        id = String(parts[3])
        expiresAt = Timestamp(secondsSince1970: expires)
    }

    /// `challenge` with the first nonce that gives it `bits` (what proof-worker.js finds), or,
    /// with `missing`, the first that does not: for tests and benchmarks.
    package static func solve(_ challenge: String, bits: Int, missing: Bool = false) -> String {
        var nonce = 0
        while (leadingZeroBits(Digest(of: Array("\(challenge):\(nonce)".utf8))) >= bits) == missing { nonce += 1 }
        return "\(challenge):\(nonce)"
    }

    /// How many zero bits `digest` begins with.
    static func leadingZeroBits(_ digest: Digest) -> Int {
        var count = 0
        for character in digest.hex.utf8 {
            // One hex digit is four bits.
            let value = Int(character >= 97 ? character - 87 : character - 48)
            if value == 0 {
                count += 4
                continue
            }
            return count + (value < 2 ? 3 : value < 4 ? 2 : value < 8 ? 1 : 0)
        }
        return count
    }
}

/// HMAC-SHA-256 (RFC 2104) over ``Digest``'s SHA-256.
package enum HMAC {
    /// The 32-byte MAC of `message` under `key`.
    static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let block = 64
        var padded = key.count > block ? bytes(Digest(of: key)) : key
        padded += [UInt8](repeating: 0, count: block - padded.count)
        let inner = bytes(Digest(of: padded.map { $0 ^ 0x36 } + message))
        return bytes(Digest(of: padded.map { $0 ^ 0x5c } + inner))
    }

    /// Whether `a` and `b` are equal, compared without stopping at the first difference, so
    /// timing does not tell how much of a guess was right.
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }

    /// A digest's 32 bytes.
    private static func bytes(_ digest: Digest) -> [UInt8] {
        // A digest's hex is 64 lowercase hex digits (checked where it is made).
        Hex.bytes(digest.hex) ?? []
    }
}
