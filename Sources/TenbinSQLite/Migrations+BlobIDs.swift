import TenbinKit

extension Migrations {
    /// Migration 4: integer blob ids.
    ///
    /// Schemas 1–3 referenced a blob from `poster.image1`, `poster.image2` and `upload.digest`
    /// by its 64-character hex digest, so every poster row carried 128 bytes of digests and
    /// every entry of `poster_identity` and `poster_image2` repeated them. From schema 4 a
    /// blob row has an integer `id` (its rowid) next to its unique digest, and those columns
    /// hold the id. The digest stays the blob's only name outside the backend: the store seam
    /// speaks in digests and the SQL translates.
    ///
    /// SQLite cannot change a column's type in place, so `blob`, `upload` and `poster` are
    /// rebuilt (new table, copy, drop, rename), in the one transaction of the migration, with
    /// foreign-key enforcement off for its duration (see ``migrate(_:readOnly:)``). Poster ids,
    /// votes, times and texts are copied as they are; `hashtag` and `search_key` rows keep
    /// referencing the same poster ids and the search index (keyed by poster id) is untouched.
    /// Ids are never reused: the AUTOINCREMENT high-water mark of `poster` is carried over
    /// even when the newest posters were deleted.
    @Sendable static func useBlobIDs(_ database: Database) throws {
        // Foreign keys were enforced when these rows were written, so this finds only a store
        // damaged by hand; it is named instead of failing inside the copy.
        let orphan = try database.statement(
            """
            SELECT id FROM poster p WHERE NOT EXISTS (SELECT 1 FROM blob WHERE digest = p.image1)
            OR NOT EXISTS (SELECT 1 FROM blob WHERE digest = p.image2) ORDER BY id LIMIT 1
            """
        ).first { $0.int64(0) }
        if let orphan {
            throw StoreError(
                .damaged("poster \(orphan) references an image with no blob row; it cannot be upgraded"), at: database.path)
        }
        try database.execute(blobIDsSchema)
    }

    /// Schema 4's `blob`, `upload` and `poster` tables, each name followed by `suffix` (the
    /// migration builds them beside the old ones, then renames them).
    static func blobIDTables(suffix: String) -> String {
        """
        CREATE TABLE blob\(suffix) (
            id INTEGER PRIMARY KEY,
            digest TEXT NOT NULL UNIQUE,
            format TEXT NOT NULL CHECK (format IN ('jpeg', 'png')),
            width INTEGER NOT NULL,
            height INTEGER NOT NULL,
            bytes INTEGER NOT NULL,
            source TEXT
        );
        CREATE TABLE upload\(suffix) (
            source TEXT NOT NULL,
            options TEXT NOT NULL,
            blob_id INTEGER NOT NULL REFERENCES blob(id) ON DELETE CASCADE,
            PRIMARY KEY (source, options)
        ) WITHOUT ROWID;
        CREATE TABLE poster\(suffix) (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            contents TEXT NOT NULL,
            good1 INTEGER NOT NULL DEFAULT 0,
            good2 INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL,
            image1 INTEGER NOT NULL REFERENCES blob(id),
            image2 INTEGER NOT NULL REFERENCES blob(id)
        );
        """
    }

    /// Schema 4's indexes on those tables.
    static let blobIDIndexes = """
        CREATE INDEX upload_blob ON upload(blob_id);
        CREATE INDEX poster_popular ON poster(good1 + good2 DESC, id DESC);
        -- Finds a poster by its two images and contents (import recognises a poster it already
        -- stored with one probe); also serves every lookup by image1.
        CREATE INDEX poster_identity ON poster(image1, image2, contents);
        CREATE INDEX poster_image2 ON poster(image2);
        """

    /// The SQL of ``useBlobIDs(_:)``.
    static let blobIDsSchema =
        blobIDTables(suffix: "_v4") + """
            INSERT INTO blob_v4 (digest, format, width, height, bytes, source)
                SELECT digest, format, width, height, bytes, source FROM blob ORDER BY digest;
            INSERT INTO upload_v4 (source, options, blob_id)
                SELECT u.source, u.options, b.id FROM upload u LEFT JOIN blob_v4 b ON b.digest = u.digest;
            -- A LEFT JOIN: a poster whose blob row is missing fails the NOT NULL constraint (and
            -- the migration) instead of being dropped.
            INSERT INTO poster_v4 (id, contents, good1, good2, created_at, image1, image2)
                SELECT p.id, p.contents, p.good1, p.good2, p.created_at, b1.id, b2.id
                FROM poster p LEFT JOIN blob_v4 b1 ON b1.digest = p.image1 LEFT JOIN blob_v4 b2 ON b2.digest = p.image2
                ORDER BY p.id;
            -- The high-water mark of ids ever given (deleted posters' ids are never reused).
            DELETE FROM sqlite_sequence WHERE name = 'poster_v4';
            INSERT INTO sqlite_sequence (name, seq) SELECT 'poster_v4', seq FROM sqlite_sequence WHERE name = 'poster';

            DROP TABLE upload;
            DROP TABLE poster;
            DROP TABLE blob;
            ALTER TABLE blob_v4 RENAME TO blob;
            ALTER TABLE upload_v4 RENAME TO upload;
            ALTER TABLE poster_v4 RENAME TO poster;

            """ + blobIDIndexes

    /// The newest schema, created at once in a new store: what steps 1–10 would build, without
    /// building schema 1's tables only to rebuild them (that doubled a new store's first
    /// write, which a nearly full disk may not have room for). `SchemaUpgradeTests` checks
    /// that both give the same tables, columns, indexes and keys.
    static let freshSchema =
        blobIDTables(suffix: "") + blobIDIndexes + """

            CREATE TABLE hashtag (
                poster_id INTEGER NOT NULL REFERENCES poster(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                tag TEXT NOT NULL,
                PRIMARY KEY (poster_id, position)
            ) WITHOUT ROWID;

            """ + SQLiteSession.searchKeySchema + SQLiteSession.searchIndexSchema + identityHashColumn + identityHashIndex
        + splitPopularIndex + SQLiteSession.searchMergeSchema + altTextColumns + SQLiteSession.moderationSchema
        + SQLiteSession.blocklistSchema + timelineSchema + SQLiteSession.postProofSchema + SQLiteSession.readingSchema
        + SQLiteSession.voteLogSchema + trendingSchema + SQLiteSession.segmentTopColumn
}
