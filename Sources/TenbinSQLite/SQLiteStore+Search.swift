import TenbinKit

/// Search in SQLite: each poster's normalised key, and an index of its pieces.
///
/// `search_key` holds the key (``SearchText/key(contents:hashtags:)``), the one exact record
/// of what a poster can be found by. `search_gram` is a contentless FTS5 table of the key's
/// tokens (computed by the core, ``SearchGrams``), rowid = poster id, used only to narrow
/// candidates: the core rechecks every hit against its key, so a stale index row can cost
/// time but never a wrong result. Both change in the same transaction as the poster.
///
/// No LIKE or GLOB is ever sent to an FTS5 table: on SQLite 3.40.1 that returns wrong rows
/// and can crash the process.
extension SQLiteSession {
    static let searchSchema = """
        CREATE TABLE search_key (
            poster_id INTEGER PRIMARY KEY REFERENCES poster(id) ON DELETE CASCADE,
            key TEXT NOT NULL
        );
        CREATE VIRTUAL TABLE search_gram USING fts5(grams, tokenize = 'ascii', detail = 'none', content = '');
        """

    /// The `search_key` table alone (as schema 2 made it; a fresh store adds ``searchGramSchema``).
    static let searchKeySchema = """
        CREATE TABLE search_key (
            poster_id INTEGER PRIMARY KEY REFERENCES poster(id) ON DELETE CASCADE,
            key TEXT NOT NULL
        );
        """

    /// Records a poster's key and tokens (inside its transaction).
    func indexSearch(id: Int64, _ search: SearchRecord) throws {
        try db.statement(Self.searchKeyInsert).bind(id, search.key).run()
        try db.statement(Self.searchGramInsert).bind(id, search.document).run()
    }

    /// Removes a poster's key and tokens (inside the transaction that deletes or edits it).
    ///
    /// A contentless FTS5 table forgets a row only when told exactly which tokens it had, so
    /// they are rebuilt from the stored key, with the same function that indexed them.
    func removeSearch(id: Int64) throws {
        guard let key = try db.statement("SELECT key FROM search_key WHERE poster_id = ?").bind(id).first({ $0.text(0) }) else {
            return
        }
        try db.statement("INSERT INTO search_gram (search_gram, rowid, grams) VALUES ('delete', ?, ?)")
            .bind(id, SearchGrams.document(forKey: key)).run()
        try db.statement("DELETE FROM search_key WHERE poster_id = ?").bind(id).run()
    }

    /// Migration 2: indexes every poster stored before search existed.
    ///
    /// It reads only columns schema 1 already had, in plain SQL: a later schema (integer blob
    /// ids, migration 4) changes how posters join their blobs, and this step runs before it.
    @Sendable static func indexAllPosters(_ db: Database) throws {
        let session = SQLiteSession(db)
        var hashtags: [Int64: [String]] = [:]
        let tags = try db.statement("SELECT poster_id, tag FROM hashtag ORDER BY poster_id, position")
        while try tags.step() { hashtags[tags.int64(0), default: []].append(tags.text(1)) }
        let posters = try db.statement("SELECT id, contents FROM poster ORDER BY id").map { ($0.int64(0), $0.text(1)) }
        for (id, contents) in posters {
            try session.removeSearch(id: id)
            try session.indexSearch(id: id, SearchRecord(contents: contents, hashtags: hashtags[id] ?? []))
        }
    }

    /// Migration 3's SQL: empties the index (a contentless table forgets everything at once
    /// this way) and sets how much FTS5 buffers before it writes a segment. Fewer, larger
    /// segments mean less merging while a big import runs; a transaction's tokens are
    /// written at its commit whatever the size.
    static let leanerIndexSchema = """
        INSERT INTO search_gram (search_gram) VALUES ('delete-all');
        INSERT INTO search_gram (search_gram, rank) VALUES ('hashsize', 16777216);
        """

    /// Part of migration 5: FTS5 merges a level's segments once 16 of them have gathered
    /// instead of 4 (the most it allows). Each commit writes its tokens as a new segment, and
    /// at the default every token was rewritten by a merge about once per four commits'
    /// worth of growth: inserting a million posters' documents alone took 37.5 CPU-seconds
    /// at 4 and 27.4 at 16 (docs/benchmarks.md). Queries read a few more segments per term,
    /// which at a million posters stays well under a millisecond per term.
    static let fewerMergesSchema = """
        INSERT INTO search_gram (search_gram, rank) VALUES ('automerge', 16);
        """

    /// The index as schema 6 defines it: schema 2's table without FTS5's per-document size
    /// row (`columnsize = 0`), with schema 3's buffer and schema 5's merge settings. Nothing
    /// reads the sizes (they serve ranking functions, and search ranks by id or votes); not
    /// writing them made inserting a poster's tokens about 10 % cheaper (docs/benchmarks.md).
    /// Without the size table FTS5 cannot choose rowids itself: every insert gives the poster id.
    static let searchGramSchema = """
        CREATE VIRTUAL TABLE search_gram USING fts5(grams, tokenize = 'ascii', detail = 'none', content = '', columnsize = 0);
        INSERT INTO search_gram (search_gram, rank) VALUES ('hashsize', 16777216);
        INSERT INTO search_gram (search_gram, rank) VALUES ('automerge', 16);
        """

    /// Migration 6's SQL: the index table made again as ``searchGramSchema`` (FTS5 cannot
    /// change `columnsize` in place), then refilled by ``reindexAllKeys(_:)``.
    static let sizelessIndexSchema = "DROP TABLE search_gram;\n" + searchGramSchema

    /// Migration 3: indexes every stored key again with the current vocabulary.
    /// The keys are read `slice` at a time, so a million posters' keys are never all in memory.
    @Sendable static func reindexAllKeys(_ db: Database) throws {
        try reindexAllKeys(db, slice: 10_000)
    }

    static func reindexAllKeys(_ db: Database, slice size: Int) throws {
        let insert = try db.statement("INSERT INTO search_gram (rowid, grams) VALUES (?, ?)")
        let slice = try db.statement("SELECT poster_id, key FROM search_key WHERE poster_id > ? ORDER BY poster_id LIMIT ?")
        var last = Int64.min
        while true {
            slice.reset()
            let keys = try slice.bind(last, size).map { ($0.int64(0), $0.text(1)) }
            guard let end = keys.last?.0 else { return }
            for (id, key) in keys {
                insert.reset()
                try insert.bind(id, SearchGrams.document(forKey: key)).run()
            }
            last = end
        }
    }

    /// The FTS5 expression requiring every term: exact tokens quoted, prefixes starred.
    static func matchExpression(_ terms: [IndexTerm]) -> String {
        terms.map { $0.isPrefix ? "\"\($0.token)\"*" : "\"\($0.token)\"" }.joined(separator: " ")
    }

    func searchCandidates(_ terms: [IndexTerm], below: Int64?, visit: (SearchEntry) throws -> Bool) throws {
        let statement: Statement
        if terms.isEmpty {
            statement = try db.statement(
                """
                SELECT k.poster_id, k.key, p.good1 + p.good2 FROM search_key k JOIN poster p ON p.id = k.poster_id
                WHERE k.poster_id < ? ORDER BY k.poster_id DESC
                """
            ).bind(below ?? Int64.max)
        } else {
            statement = try db.statement(
                """
                SELECT g.rowid, k.key, p.good1 + p.good2 FROM search_gram g JOIN search_key k ON k.poster_id = g.rowid
                JOIN poster p ON p.id = g.rowid WHERE search_gram MATCH ? AND g.rowid < ? ORDER BY g.rowid DESC
                """
            ).bind(Self.matchExpression(terms), below ?? Int64.max)
        }
        defer { statement.reset() }
        while try statement.step() {
            guard try visit(SearchEntry(id: statement.int64(0), key: statement.text(1), votes: statement.int(2))) else { return }
        }
    }

    func searchCandidateIDs(_ terms: [IndexTerm], limit: Int) throws -> [Int64] {
        guard !terms.isEmpty else {
            return try db.statement("SELECT poster_id FROM search_key LIMIT ?").bind(limit).map { $0.int64(0) }
        }
        return try db.statement("SELECT rowid FROM search_gram WHERE search_gram MATCH ? LIMIT ?")
            .bind(Self.matchExpression(terms), limit).map { $0.int64(0) }
    }

    func searchEntries(ids: [Int64]) throws -> [SearchEntry] {
        guard !ids.isEmpty else { return [] }
        return try db.statement(
            """
            SELECT k.poster_id, k.key, p.good1 + p.good2 FROM search_key k JOIN poster p ON p.id = k.poster_id
            WHERE k.poster_id IN (SELECT value FROM json_each(?))
            """
        ).bind(Self.idList(ids)).map { SearchEntry(id: $0.int64(0), key: $0.text(1), votes: $0.int(2)) }
    }

    /// Every poster's key in popular order after `after`, part by part (``SQLiteSession/PopularPart``).
    func searchEntriesByVotes(after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws {
        for part in PopularPart.following(after) {
            let statement = try db.statement(
                """
                SELECT p.id, k.key, p.good1 + p.good2 FROM poster p JOIN search_key k ON k.poster_id = p.id
                WHERE \(part.condition) ORDER BY \(part.orderBy)
                """
            ).bind(part.bindings)
            defer { statement.reset() }
            while try statement.step() {
                guard try visit(SearchEntry(id: statement.int64(0), key: statement.text(1), votes: statement.int(2))) else { return }
            }
        }
    }

    /// What `tenbin check` finds wrong with the index's structure: posters without a key,
    /// keys without a poster, and FTS5's own integrity check (on a writable store).
    func searchProblems(checkIndex: Bool) throws -> [String] {
        var problems = try db.statement(
            "SELECT p.id FROM poster p WHERE NOT EXISTS (SELECT 1 FROM search_key k WHERE k.poster_id = p.id)"
        ).map { "poster \($0.int64(0)) has no search key; search cannot find it" }
        problems += try db.statement(
            "SELECT k.poster_id FROM search_key k WHERE NOT EXISTS (SELECT 1 FROM poster p WHERE p.id = k.poster_id)"
        ).map { "a search key remains for deleted poster \($0.int64(0))" }
        guard checkIndex else { return problems }
        do {
            // FTS5 takes the check as an INSERT, which a read-only store refuses outright.
            try db.execute("INSERT INTO search_gram (search_gram, rank) VALUES ('integrity-check', 0)")
        } catch let error as SQLiteError where !error.isReadOnly {
            problems.append("the search index is damaged (\(error.message))")
        } catch is SQLiteError {}
        return problems
    }
}
