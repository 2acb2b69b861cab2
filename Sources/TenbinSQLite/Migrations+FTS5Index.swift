import TenbinKit

/// Schemas 2–7's search index, an FTS5 table of each key's tokens, as the migrations that
/// built it need it (schema 8 replaced it with an index of tenbin's own; see
/// SQLiteStore+Search.swift). A released step never changes, so this code stays as it was,
/// writing FTS5 documents, while later steps upgrade what it built.
extension Migrations {
    /// Schema 2's tables: the key, and the index as FTS5 (`tokenize = 'ascii'`, no positions,
    /// no content of its own).
    static let fts5SearchSchema = """
        CREATE TABLE search_key (
            poster_id INTEGER PRIMARY KEY REFERENCES poster(id) ON DELETE CASCADE,
            key TEXT NOT NULL
        );
        CREATE VIRTUAL TABLE search_gram USING fts5(grams, tokenize = 'ascii', detail = 'none', content = '');
        """

    /// Migration 2: indexes every poster stored before search existed.
    ///
    /// It reads only columns schema 1 already had, in plain SQL: a later schema (integer blob
    /// ids, migration 4) changes how posters join their blobs, and this step runs before it.
    @Sendable static func fts5IndexAllPosters(_ db: Database) throws {
        var hashtags: [Int64: [String]] = [:]
        let tags = try db.statement("SELECT poster_id, tag FROM hashtag ORDER BY poster_id, position")
        while try tags.step() { hashtags[tags.int64(0), default: []].append(tags.text(1)) }
        let posters = try db.statement("SELECT id, contents FROM poster ORDER BY id").map { ($0.int64(0), $0.text(1)) }
        for (id, contents) in posters {
            let record = SearchRecord(contents: contents, hashtags: hashtags[id] ?? [])
            try db.statement("INSERT INTO search_key (poster_id, key) VALUES (?, ?)").bind(id, record.key).run()
            try db.statement("INSERT INTO search_gram (rowid, grams) VALUES (?, ?)").bind(id, record.document).run()
        }
    }

    /// Migration 3's SQL: empties the index (a contentless table forgets everything at once
    /// this way) and sets how much FTS5 buffers before it writes a segment.
    static let fts5LeanerIndexSchema = """
        INSERT INTO search_gram (search_gram) VALUES ('delete-all');
        INSERT INTO search_gram (search_gram, rank) VALUES ('hashsize', 16777216);
        """

    /// Part of migration 5: FTS5 merges a level's segments once 16 of them have gathered
    /// instead of 4 (inserting a million posters' documents took 37.5 CPU-seconds at 4 and
    /// 27.4 at 16; docs/benchmarks.md).
    static let fts5FewerMergesSchema = """
        INSERT INTO search_gram (search_gram, rank) VALUES ('automerge', 16);
        """

    /// Migration 6's SQL: the FTS5 table made again without per-document sizes
    /// (`columnsize = 0`, which FTS5 cannot change in place), then refilled by
    /// ``fts5ReindexAllKeys(_:)``.
    static let fts5SizelessIndexSchema = """
        DROP TABLE search_gram;
        CREATE VIRTUAL TABLE search_gram USING fts5(grams, tokenize = 'ascii', detail = 'none', content = '', columnsize = 0);
        INSERT INTO search_gram (search_gram, rank) VALUES ('hashsize', 16777216);
        INSERT INTO search_gram (search_gram, rank) VALUES ('automerge', 16);
        """

    /// Migrations 3 and 6: indexes every stored key again, `slice` keys at a time, so a
    /// million posters' keys are never all in memory.
    @Sendable static func fts5ReindexAllKeys(_ db: Database) throws {
        let insert = try db.statement("INSERT INTO search_gram (rowid, grams) VALUES (?, ?)")
        try SQLiteSession.forEachKey(in: db, slice: 10_000) { keys in
            for (id, key) in keys {
                insert.reset()
                try insert.bind(id, SearchGrams.document(forKey: key)).run()
            }
        }
    }
}
