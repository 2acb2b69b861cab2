import Testing

@testable import TenbinKit

/// The proof of work's rule and its signature, without a store.
@Suite struct PostProofTests {
    static let key = Array("a key of the board, 32 bytes ok!".utf8)
    static let now = Timestamp(secondsSince1970: 1_800_000_000)

    static func solve(_ challenge: String, bits: Int) -> String { PostProof.solve(challenge, bits: bits) }

    @Test func hmacMatchesTheRFC4231Vectors() {
        let key = [UInt8](repeating: 0x0b, count: 20)
        #expect(
            Hex.string(HMAC.sha256(key: key, message: Array("Hi There".utf8)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        // A key longer than a block is hashed first (test case 6).
        let long = [UInt8](repeating: 0xaa, count: 131)
        #expect(
            Hex.string(HMAC.sha256(key: long, message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func leadingZeroBitsCountsWithinTheFirstNonZeroDigit() throws {
        let digests = try ["8", "4", "2", "1", "0f", "007", "0000"].map {
            try #require(Digest(hex: $0 + String(repeating: "f", count: 64 - $0.count)))
        }
        #expect(digests.map(PostProof.leadingZeroBits) == [0, 1, 2, 3, 4, 9, 16])
        #expect(PostProof.leadingZeroBits(try #require(Digest(hex: String(repeating: "0", count: 64)))) == 256)
    }

    @Test func aSolvedChallengeIsAcceptedAndNamesItsIdentityAndExpiry() throws {
        let challenge = PostProof.challenge(key: Self.key, bits: 8, now: Self.now, lifetime: 600)
        #expect(challenge.wholeMatch(of: /1\.1800000600\.8\.[0-9a-f]{32}\.[0-9a-f]{64}/) != nil)
        let proof = try PostProof(checking: Self.solve(challenge, bits: 8), key: Self.key, bits: 8, now: Self.now)
        #expect(proof.id == String(challenge.split(separator: ".")[3]))
        #expect(proof.expiresAt == Timestamp(secondsSince1970: 1_800_000_600))
        #expect(PostProof.challenge(key: Self.key, bits: 8, now: Self.now, lifetime: 600) != challenge, "each challenge is new")
    }

    @Test func everyBadProofIsRefusedWithItsReason() throws {
        let challenge = PostProof.challenge(key: Self.key, bits: 8, now: Self.now, lifetime: 600)
        let good = Self.solve(challenge, bits: 8)
        func refusal(_ proof: String, key: [UInt8] = Self.key, bits: Int = 8, at now: Timestamp = Self.now) -> PostProof.Refusal? {
            do {
                _ = try PostProof(checking: proof, key: key, bits: bits, now: now)
                return nil
            } catch { return error }
        }
        #expect(refusal(good) == nil)
        #expect(refusal(challenge) == .invalid("a proof is CHALLENGE:NONCE, the nonce 1 to 64 characters"))
        #expect(refusal(challenge + ":") == .invalid("a proof is CHALLENGE:NONCE, the nonce 1 to 64 characters"))
        #expect(refusal("hello:1") == .invalid("the challenge is not one this server issues"))
        #expect(refusal(good, key: Array("another board's key".utf8)) == .invalid("the challenge was not signed by this board"))
        // A challenge altered to ask for less work no longer matches its signature.
        let easier = challenge.replacing(".8.", with: ".1.")
        #expect(refusal(Self.solve(easier, bits: 1)) == .invalid("the challenge was not signed by this board"))
        #expect(refusal(good, bits: 12) == .invalid("the challenge asks for 8 bits; this server wants 12"))
        #expect(refusal(good, at: Timestamp(secondsSince1970: 1_800_000_600)) == .expired)
        #expect(refusal(good, at: Timestamp(secondsSince1970: 1_800_000_599)) == nil)
        // A nonce that misses the bits.
        #expect(
            refusal(PostProof.solve(challenge, bits: 8, missing: true))
                == .invalid("the nonce does not give a hash with 8 leading zero bits"))
    }
}
