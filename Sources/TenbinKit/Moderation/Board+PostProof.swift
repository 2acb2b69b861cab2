/// The store's part of proof of work for posting: the key challenges are signed with, kept in
/// the store so that every server on it signs alike, and the challenges spent, kept until they
/// expire so that no server takes one twice.
extension Board {
    /// The key post-proof challenges are signed with, made (32 random bytes) and stored by the
    /// first server that asks.
    public func postProofKey() throws -> [UInt8] {
        var random = SystemRandomNumberGenerator()
        let candidate = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        return try store.write { try $0.postProofKey(storing: candidate) }
    }

    /// Spends a checked proof's challenge; false when it was spent before (by any server on
    /// this store).
    public func spendPostProof(_ proof: PostProof) throws -> Bool {
        try store.write { try $0.spendPostProof(id: proof.id, expiresAt: proof.expiresAt, now: configuration.now()) }
    }
}
