import TenbinKit

/// The store's schema, as numbered steps applied in order and recorded in
/// `PRAGMA user_version`. A step, once released, never changes: later changes are new steps.
enum Migrations {
    static let steps: [Step] = [
        // 1: posters, their hashtags, and the blobs they reference.
        """
        CREATE TABLE blob (
            digest TEXT PRIMARY KEY NOT NULL,
            format TEXT NOT NULL CHECK (format IN ('jpeg', 'png')),
            width INTEGER NOT NULL,
            height INTEGER NOT NULL,
            bytes INTEGER NOT NULL,
            source TEXT
        ) WITHOUT ROWID;
        CREATE TABLE upload (
            source TEXT NOT NULL,
            options TEXT NOT NULL,
            digest TEXT NOT NULL REFERENCES blob(digest) ON DELETE CASCADE,
            PRIMARY KEY (source, options)
        ) WITHOUT ROWID;
        CREATE INDEX upload_digest ON upload(digest);
        CREATE TABLE poster (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            contents TEXT NOT NULL,
            good1 INTEGER NOT NULL DEFAULT 0,
            good2 INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL,
            image1 TEXT NOT NULL REFERENCES blob(digest),
            image2 TEXT NOT NULL REFERENCES blob(digest)
        );
        CREATE INDEX poster_popular ON poster(good1 + good2 DESC, id DESC);
        -- Finds a poster by its two images and contents (import recognises a poster it already
        -- stored with one probe); also serves every lookup by image1.
        CREATE INDEX poster_identity ON poster(image1, image2, contents);
        CREATE INDEX poster_image2 ON poster(image2);
        CREATE TABLE hashtag (
            poster_id INTEGER NOT NULL REFERENCES poster(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            tag TEXT NOT NULL,
            PRIMARY KEY (poster_id, position)
        ) WITHOUT ROWID;
        """,
        // 2: search — each poster's normalised key and the index of its pieces (see
        // SQLiteStore+Search.swift), filled for the posters already stored.
        Step(sql: fts5SearchSchema, then: fts5IndexAllPosters),
        // 3: the leaner index vocabulary (one- and two-character pieces, no three-character
        // ones; see SearchGrams): every poster's tokens are rebuilt from its stored key, and
        // FTS5 keeps up to 16 MB of new tokens in memory before writing a segment.
        Step(sql: fts5LeanerIndexSchema, then: fts5ReindexAllKeys),
        // 4: integer blob ids. Poster rows and upload rows reference a blob by its rowid
        // instead of its 64-character digest, so their rows and index entries are short; the
        // digest is stored once, in the blob row. See Migrations+BlobIDs.swift.
        Step(sql: "", then: useBlobIDs),
        // 5: the identity index holds a 64-bit hash of each poster's contents instead of the
        // contents (a tenth of its size; see Migrations+IdentityHash.swift), and FTS5 merges
        // the index's segments 16 at a time instead of 4 (SQLiteStore+Search.swift).
        Step(sql: identityHashColumn + fts5FewerMergesSchema, then: hashIdentities),
        // 6: the index keeps no per-document sizes (FTS5's `columnsize = 0`): the table is
        // made again and every poster's tokens rebuilt from its stored key.
        Step(sql: fts5SizelessIndexSchema, then: fts5ReindexAllKeys),
        // 7: popular order from two indexes, voted posters and unvoted ones, in place of one
        // over all posters (see SQLiteSession.PopularPart).
        Step(sql: splitPopularIndex),
        // 8: search's index of tenbin's own in place of FTS5: posting lists a batch builds in
        // memory and writes as one segment, merged eight at a time (see
        // SQLiteStore+Search.swift); filled from every stored key.
        Step(sql: "DROP TABLE search_gram;\n" + SQLiteSession.searchIndexSchema, then: SQLiteSession.indexAllKeys),
        // 9: merges of the index in steps, a bounded amount in each write (see
        // SQLiteStore+Search.swift), recorded in `search_merge`; the merges migration 8's
        // segments are due are done whole.
        Step(sql: SQLiteSession.searchMergeSchema, then: SQLiteSession.mergeWhole),
        // 10: each image's alt text (empty for the posters stored before).
        Step(sql: altTextColumns),
        // 11: moderation — reports, the reporters a restore cleared, hidden posters, and the
        // audit log (see SQLiteSession+Moderation.swift).
        Step(sql: SQLiteSession.moderationSchema),
        // 12: blocked images — each blob's perceptual hash (filled lazily: a picture stored
        // before is hashed when a post uses it again or a moderator blocks it) and the
        // blocklist (see SQLiteSession+Blocklist.swift).
        Step(sql: SQLiteSession.blocklistSchema),
        // 13: per-poster vote timelines, each voted poster starting with one bucket holding
        // its counts so far (see Migrations+Timelines.swift).
        Step(sql: timelineMigration),
        // 14: proof of work for posting — the key challenges are signed with and the challenges
        // spent (see SQLiteSession+PostProof.swift).
        Step(sql: SQLiteSession.postProofSchema),
        // 15: search by reading — the posters stored so far are given keys with readings a
        // few hundred per write (see SQLiteStore+Readings.swift).
        Step(sql: SQLiteSession.readingMigration),
        // 16: the vote log, so a walk through popular order ranks by the votes as of its
        // first page (see SQLiteSession+VoteLog.swift).
        Step(sql: SQLiteSession.voteLogSchema + SQLiteSession.voteLogByPosterSchema),
        // 17: trending order — each poster's score (``Trending``) in its row, indexed like
        // popular's votes, seeded from its timeline (see Migrations+Trending.swift).
        Step(sql: trendingMigration),
        // 18: the vote log keyed by batch alone, a vote's rows appended where the last batch's
        // ended (see SQLiteSession+VoteLog.swift).
        Step(sql: SQLiteSession.voteLogByBatchOnly),
        // 19: each search segment's top, the highest poster id it holds, so a search reads the
        // old, large segments only once its page reaches them (see SQLiteStore+Search.swift).
        Step(sql: SQLiteSession.segmentTopColumn, then: SQLiteSession.recordSegmentTops),
    ]

    /// Schema 10's columns: each image's alt text (``Poster/alt1``), `''` when none was given.
    static let altTextColumns = """
        ALTER TABLE poster ADD COLUMN alt1 TEXT NOT NULL DEFAULT '';
        ALTER TABLE poster ADD COLUMN alt2 TEXT NOT NULL DEFAULT '';

        """

    /// Schema 7's indexes for popular order. `poster_popular` (votes, then id, descending) put
    /// every new poster, which has no votes, at one interior point: after every voted poster,
    /// before the older unvoted ones. SQLite splits a page there through its general
    /// rebalancing and leaves a half-empty page behind; at a million imported posters the
    /// index cost the import's SQL 13 % (docs/benchmarks.md). In `poster_unvoted` a new poster
    /// is the largest id, appended at the right edge; a poster moves to `poster_voted` with its
    /// first vote. Votes are never negative; `<= 0` only makes sure no poster falls outside both.
    static let splitPopularIndex = """
        DROP INDEX poster_popular;
        CREATE INDEX poster_voted ON poster(good1 + good2 DESC, id DESC) WHERE good1 + good2 > 0;
        CREATE INDEX poster_unvoted ON poster(id) WHERE good1 + good2 <= 0;
        """

    /// One schema change: SQL, then optionally Swift code filling what SQL cannot compute.
    struct Step: ExpressibleByStringLiteral, Sendable {
        let sql: String
        var then: (@Sendable (Database) throws -> Void)?

        init(sql: String, then: (@Sendable (Database) throws -> Void)? = nil) {
            self.sql = sql
            self.then = then
        }

        init(stringLiteral sql: String) {
            self.init(sql: sql)
        }
    }

    /// Brings the database up to the newest schema, each step in its own transaction. A
    /// database that holds other tables but no tenbin schema is refused, never changed.
    static func migrate(_ database: Database, readOnly: Bool = false) throws {
        let current = try version(of: database)
        if current > steps.count {
            throw StoreError(.newerSchema(current, known: steps.count), at: database.path)
        }
        if current == 0, let table = try foreignTable(in: database) {
            throw StoreError(
                .notAStore("its tenbin.sqlite is another program's database, with a table '\(table.prefix(40))'"), at: database.path)
        }
        guard current < steps.count else { return }
        if readOnly { throw StoreError(.readOnly, at: database.path) }
        // A step may rebuild a table others reference (SQLite's way to change a column's type):
        // with foreign keys enforced, dropping the old table would cascade into the rows that
        // reference it. Enforcement can only change outside a transaction; the transaction
        // checks every reference itself before it commits.
        try database.execute("PRAGMA foreign_keys = OFF")
        defer {
            // Turning enforcement back on outside a transaction cannot fail.
            _ = try? database.execute("PRAGMA foreign_keys = ON")
        }
        try database.transaction {
            // Another process may have migrated while this one waited for the lock.
            let now = try version(of: database)
            if now == 0 {
                try database.execute(freshSchema)
            } else {
                for index in now..<steps.count {
                    try database.execute(steps[index].sql)
                    try steps[index].then?(database)
                }
            }
            if let broken = try database.statement("PRAGMA foreign_key_check").first({ $0.text(0) }) {
                throw StoreError(
                    .damaged("a row of table \(broken.prefix(40)) references a missing row; it cannot be upgraded"), at: database.path)
            }
            try database.execute("PRAGMA user_version = \(steps.count)")
        }
    }

    /// A table of a database without tenbin's schema, if it has any.
    private static func foreignTable(in database: Database) throws -> String? {
        try database.statement("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' LIMIT 1").first {
            $0.text(0)
        }
    }

    static func version(of database: Database) throws -> Int {
        try database.statement("PRAGMA user_version").first { $0.int(0) } ?? 0
    }
}
