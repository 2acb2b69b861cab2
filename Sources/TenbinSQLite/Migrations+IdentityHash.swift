import TenbinKit

extension Migrations {
    /// Migration 5: the identity index holds a hash of each poster's contents, not the contents.
    ///
    /// Up to schema 4, `poster_identity` was `(image1, image2, contents)`: every entry repeated
    /// its poster's whole text (about 130 bytes for 50 characters of Japanese), so at a million
    /// posters the index was larger than the writer's page cache, and each poster an import
    /// added dirtied a leaf page of it somewhere at random, read it back and wrote it to the
    /// WAL. From schema 5 a poster row also holds `contents_hash` (``ContentsHash``, a 64-bit
    /// hash of the contents' UTF-8) and the index is `(image1, image2, contents_hash)`: about a
    /// tenth of the size. A lookup by identity compares the contents of the rows the index
    /// finds, so a hash collision costs one more row read, never a wrong answer.
    ///
    /// Rows of earlier schemas get their hash here, computed in Swift (SQLite has no hash
    /// function to compute it in SQL); the index is built once they all have one.
    @Sendable static func hashIdentities(_ database: Database) throws {
        let update = try database.statement("UPDATE poster SET contents_hash = ? WHERE id = ?")
        let rows = try database.statement("SELECT id, contents FROM poster ORDER BY id").map { ($0.int64(0), $0.text(1)) }
        for (id, contents) in rows {
            update.reset()
            try update.bind(ContentsHash.of(contents), id).run()
        }
        try database.execute(identityHashIndex)
    }

    /// Schema 5's SQL before the hashes are filled in: the column, and the old index gone.
    static let identityHashColumn = """
        ALTER TABLE poster ADD COLUMN contents_hash INTEGER NOT NULL DEFAULT 0;
        DROP INDEX poster_identity;
        """

    /// Schema 5's identity index.
    static let identityHashIndex = """
        -- Finds a poster by its two images and a hash of its contents (import recognises a poster
        -- it already stored with one probe); also serves every lookup by image1.
        CREATE INDEX poster_identity ON poster(image1, image2, contents_hash);
        """
}

/// The 64-bit hash of a poster's contents that schema 5's identity index holds: FNV-1a over
/// the contents' UTF-8 bytes (``FNV1a``), as a signed 64-bit integer (SQLite's integer).
///
/// It is stored, so it must never change: a store written with one function and read with
/// another would stop recognising its own posters on import.
enum ContentsHash {
    static func of(_ contents: String) -> Int64 {
        Int64(bitPattern: FNV1a.hash(contents))
    }
}
