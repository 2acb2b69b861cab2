import TenbinKit

/// Proof of work for posting in SQLite: the signing key (one row) and the challenges spent,
/// each kept until it expires.
extension SQLiteSession {
    /// The schema step's tables (the step's number is its place in `Migrations.steps`).
    static let postProofSchema = """

        CREATE TABLE post_proof_key (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            key TEXT NOT NULL
        );
        CREATE TABLE post_proof_spent (
            id TEXT PRIMARY KEY NOT NULL,
            expires_at INTEGER NOT NULL
        ) WITHOUT ROWID;

        """

    func postProofKey(storing candidate: [UInt8]) throws -> [UInt8] {
        try db.statement("INSERT OR IGNORE INTO post_proof_key (id, key) VALUES (1, ?)").bind(Hex.string(candidate)).run()
        let hex = try db.statement("SELECT key FROM post_proof_key WHERE id = 1").first { $0.text(0) } ?? ""
        return Hex.bytes(hex) ?? candidate
    }

    func spendPostProof(id: String, expiresAt: Timestamp, now: Timestamp) throws -> Bool {
        try db.statement("DELETE FROM post_proof_spent WHERE expires_at <= ?").bind(now.secondsSince1970).run()
        try db.statement("INSERT OR IGNORE INTO post_proof_spent (id, expires_at) VALUES (?, ?)").bind(id, expiresAt.secondsSince1970).run()
        return db.changes == 1
    }
}
