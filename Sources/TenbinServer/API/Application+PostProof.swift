import TenbinKit

/// Proof of work for posting (`--post-proof BITS`, docs/moderation.md#proof-of-work): a client
/// gets a challenge from `GET /api/v1/post-proof`, finds a nonce, and sends `CHALLENGE:NONCE`
/// in the `Tenbin-Proof` header of its post. The header is checked before the post's body is
/// read (a signature, a time and one hash: no store call), and its challenge is spent in the
/// store (single use across every server on it) before the post is stored.
extension Application {
    /// The header a post carries its proof in.
    static let proofHeader = "Tenbin-Proof"

    /// `GET /api/v1/post-proof`: a new challenge, `{"challenge", "bits", "expires"}`, never
    /// cached; 404 when the server asks for no proof.
    func postProofChallenge(_ request: Request) throws(APIError) -> Reply {
        guard let bits = configuration.postProofBits, let key = postProofKey else {
            throw .notFound("this board asks for no proof of work before a post")
        }
        let now = gateway.now()
        let expires = Timestamp(secondsSince1970: now.secondsSince1970 + configuration.postProofLifetime)
        let challenge = PostProof.challenge(key: key, bits: bits, now: now, lifetime: configuration.postProofLifetime)
        var writer = JSONWriter()
        writer.object { object in
            object.field("challenge", challenge)
            object.field("bits", bits)
            object.field("expires", expires.description)
        }
        return .now(.json(writer.text, headers: [("Cache-Control", "no-store")]))
    }

    /// The post's proof, checked (nil when the server asks for none): refused with 428 when
    /// missing, 403 when it is not a good one or has expired. Its challenge is not spent here.
    func checkedPostProof(_ head: RequestHead) throws(APIError) -> PostProof? {
        guard let bits = configuration.postProofBits, let key = postProofKey else { return nil }
        guard let proof = head.header(Self.proofHeader.lowercased()) else {
            throw APIError(
                status: 428, kind: "proof_required",
                message:
                    "posting on this board needs a proof of work: get a challenge from GET /api/v1/post-proof and send CHALLENGE:NONCE in the \(Self.proofHeader) header"
            )
        }
        do {
            return try PostProof(checking: proof, key: key, bits: bits, now: gateway.now())
        } catch {
            switch error {
            case .expired:
                throw APIError(
                    status: 403, kind: "proof_expired", message: "the proof's challenge has expired; get a new one and post again")
            case .invalid(let reason):
                throw APIError(status: 403, kind: "proof_invalid", message: "the \(Self.proofHeader) header is not a good proof: \(reason)")
            }
        }
    }

    /// Spends a checked proof's challenge (on the board executor): refused with 409 when any
    /// server on this store took it before.
    func spend(_ proof: PostProof?) throws {
        guard let proof else { return }
        guard try gateway.spendPostProof(proof) else {
            throw APIError(status: 409, kind: "proof_reused", message: "this proof was used for a post already; get a new challenge")
        }
    }
}
