import TenbinKit

/// Blocked images in SQLite: each blob row's perceptual hash (a signed 64-bit integer, NULL
/// until computed) and the blocklist, a small table read whole by every post (the match by
/// Hamming distance is the core's).
extension SQLiteSession {
    /// Schema 10's additions. The digest has no unique index: the table is small and read
    /// whole by every post, writers exclude each other (`BEGIN IMMEDIATE`), and a new store
    /// stays a page smaller (one that fills a nearly full disk's first post).
    static let blocklistSchema = """

        ALTER TABLE blob ADD COLUMN phash INTEGER;
        CREATE TABLE blocked_image (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            digest TEXT NOT NULL,
            phash INTEGER,
            note TEXT NOT NULL,
            created_at INTEGER NOT NULL
        );

        """

    func perceptualHashes(_ digests: [Digest]) throws -> [Digest: PerceptualHash] {
        guard !digests.isEmpty else { return [:] }
        let list = "[" + digests.map { "\"\($0.hex)\"" }.joined(separator: ",") + "]"
        var hashes: [Digest: PerceptualHash] = [:]
        let statement = try db.statement(
            "SELECT digest, phash FROM blob WHERE digest IN (SELECT value FROM json_each(?)) AND phash IS NOT NULL"
        ).bind(list)
        while try statement.step() {
            if let digest = Digest(hex: statement.text(0)) { hashes[digest] = PerceptualHash(storedValue: statement.int64(1)) }
        }
        return hashes
    }

    func blockedImages() throws -> [BlockedImage] {
        try db.statement("SELECT id, digest, phash, note, created_at FROM blocked_image ORDER BY id").map(Self.decodeBlockedImage)
    }

    func setPerceptualHashes(_ hashes: [Digest: PerceptualHash]) throws {
        for (digest, hash) in hashes.sorted(by: { $0.key < $1.key }) {
            try db.statement("UPDATE blob SET phash = ? WHERE digest = ?").bind(hash.storedValue, digest.hex).run()
        }
    }

    func insertBlockedImage(_ entry: NewBlockedImage, createdAt: Timestamp) throws -> BlockedImage {
        let present = try db.statement("SELECT id, digest, phash, note, created_at FROM blocked_image WHERE digest = ? LIMIT 1")
            .bind(entry.digest.hex).first(Self.decodeBlockedImage)
        if let present { return present }
        try db.statement("INSERT INTO blocked_image (digest, phash, note, created_at) VALUES (?, ?, ?, ?)")
            .bind(entry.digest.hex, entry.perceptualHash?.storedValue, entry.note, createdAt.secondsSince1970).run()
        return BlockedImage(
            id: db.lastInsertedRowID, digest: entry.digest, perceptualHash: entry.perceptualHash, note: entry.note, createdAt: createdAt)
    }

    func deleteBlockedImage(id: Int64) throws -> Bool {
        try db.statement("DELETE FROM blocked_image WHERE id = ?").bind(id).run()
        return db.changes == 1
    }

    private static func decodeBlockedImage(_ row: Statement) throws -> BlockedImage {
        guard let digest = Digest(hex: row.text(1)) else {
            throw SQLiteError(code: 11, message: "blocklist entry \(row.int64(0)) has a malformed digest", sql: nil)
        }
        return BlockedImage(
            id: row.int64(0), digest: digest, perceptualHash: row.isNull(2) ? nil : PerceptualHash(storedValue: row.int64(2)),
            note: row.text(3), createdAt: Timestamp(secondsSince1970: row.int64(4)))
    }
}
