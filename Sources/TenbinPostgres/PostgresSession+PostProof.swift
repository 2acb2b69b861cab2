import TenbinKit

/// Proof of work for posting in PostgreSQL: the signing key (one row) and the challenges spent,
/// each kept until it expires, shared by every server on the database.
extension PostgresSession {
    /// The schema step's tables (the step's number is its place in `PostgresSchema.steps`).
    static let postProofSchemaSQL = """
        CREATE TABLE post_proof_key (
            id integer PRIMARY KEY CHECK (id = 1),
            key text NOT NULL
        );
        CREATE TABLE post_proof_spent (
            id text PRIMARY KEY,
            expires_at bigint NOT NULL
        )
        """

    func postProofKey(storing candidate: [UInt8]) throws -> [UInt8] {
        // Two statements: the second's snapshot sees a key another server committed while the
        // insert waited for it (one statement would see neither its own row nor that one).
        try connection.query("INSERT INTO post_proof_key (id, key) VALUES (1, \(Hex.string(candidate))) ON CONFLICT (id) DO NOTHING")
        let rows = try connection.query("SELECT key FROM post_proof_key WHERE id = 1")
        guard rows.count == 1, let key = Hex.bytes(rows.text(0, 0)) else {
            throw PostgresError(
                kind: .internal, sqlState: nil, message: "the post-proof key row is missing or not hex",
                target: connection.target.description)
        }
        return key
    }

    func spendPostProof(id: String, expiresAt: Timestamp, now: Timestamp) throws -> Bool {
        try connection.query("DELETE FROM post_proof_spent WHERE expires_at <= \(now.secondsSince1970)")
        let rows = try connection.query(
            """
            INSERT INTO post_proof_spent (id, expires_at) VALUES (\(id), \(expiresAt.secondsSince1970))
            ON CONFLICT (id) DO NOTHING RETURNING id
            """)
        return rows.count == 1
    }
}
