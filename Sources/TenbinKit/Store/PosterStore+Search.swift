/// Search: each poster's normalised key, the index of its pieces, and queries over both.
///
/// `search_key` holds the key (``SearchText/key(contents:hashtags:)``), the one exact record
/// of what a poster can be found by. `search_gram` is a contentless FTS5 table of the key's
/// pieces (``SearchGrams``), rowid = poster id, used only to narrow candidates: every hit is
/// rechecked against `search_key`, so a stale index row can cost time but never a wrong
/// result. Both change in the same transaction as the poster (insert, delete, edit).
///
/// No LIKE or GLOB is ever sent to an FTS5 table: on SQLite 3.40.1 that returns wrong rows
/// and can crash the process.
extension PosterStore {
    static let searchSchema = """
        CREATE TABLE search_key (
            poster_id INTEGER PRIMARY KEY REFERENCES poster(id) ON DELETE CASCADE,
            key TEXT NOT NULL
        );
        CREATE VIRTUAL TABLE search_gram USING fts5(grams, tokenize = 'ascii', detail = 'none', content = '');
        """

    /// Records the key and pieces of a poster just inserted (inside its transaction).
    static func indexSearchKey(id: Int64, contents: String, hashtags: [String], in db: Database) throws {
        let key = SearchText.key(contents: contents, hashtags: hashtags)
        try db.statement("INSERT INTO search_key (poster_id, key) VALUES (?, ?)").bind(id, key).run()
        try db.statement("INSERT INTO search_gram (rowid, grams) VALUES (?, ?)").bind(id, SearchGrams.document(forKey: key)).run()
    }

    /// Removes a poster's key and pieces (inside the transaction that deletes or edits it).
    ///
    /// A contentless FTS5 table forgets a row only when told exactly which tokens it had, so
    /// they are rebuilt from the stored key, with the same function that indexed them.
    static func removeSearchKey(id: Int64, in db: Database) throws {
        guard let key = try db.statement("SELECT key FROM search_key WHERE poster_id = ?").bind(id).first({ $0.text(0) }) else {
            return
        }
        try db.statement("INSERT INTO search_gram (search_gram, rowid, grams) VALUES ('delete', ?, ?)")
            .bind(id, SearchGrams.document(forKey: key)).run()
        try db.statement("DELETE FROM search_key WHERE poster_id = ?").bind(id).run()
    }

    /// Re-reads a poster's contents and hashtags and replaces its key and pieces; whatever
    /// edits a poster's text calls this in the same transaction.
    static func reindexSearchKey(id: Int64, in db: Database) throws {
        try removeSearchKey(id: id, in: db)
        guard let poster = try poster(id: id, in: db) else { return }
        try indexSearchKey(id: id, contents: poster.contents, hashtags: poster.hashtags, in: db)
    }

    /// Migration 2: indexes every poster stored before search existed.
    @Sendable static func indexAllPosters(_ db: Database) throws {
        let ids = try db.statement("SELECT id FROM poster ORDER BY id").map { $0.int64(0) }
        for id in ids { try reindexSearchKey(id: id, in: db) }
    }

    /// The ids of a page of posters matching `query`, in `order`.
    ///
    /// Newest first reads the index's hits from the highest id down and stops once the page
    /// is full, so it costs about as much as the page, however many posters match. Popular
    /// order must see every match to rank them. Inside a task, the scan stops with
    /// `CancellationError` once the task is cancelled.
    public func searchIDs(query: SearchQuery, order: FeedOrder = .new, limit: Int = 20, offset: Int = 0) throws -> [Int64] {
        try withDatabase { db in try Self.searchIDs(query: query, order: order, limit: limit, offset: offset, in: db) }
    }

    /// ``searchIDs(query:order:limit:offset:)`` on a given connection (a feed observer's own).
    static func searchIDs(query: SearchQuery, order: FeedOrder, limit: Int, offset: Int, in db: Database) throws -> [Int64] {
        guard let expression = SearchGrams.matchExpression(for: query), limit > 0 else { return [] }
        let offset = max(0, offset)
        do {
            switch order {
            case .new:
                let statement = try db.statement(
                    """
                    SELECT g.rowid, k.key FROM search_gram g JOIN search_key k ON k.poster_id = g.rowid
                    WHERE search_gram MATCH ? ORDER BY g.rowid DESC
                    """
                ).bind(expression)
                defer { statement.reset() }
                var ids: [Int64] = []
                var matched = 0
                var rows = 0
                while try statement.step() {
                    rows += 1
                    if rows & 0xFF == 0 && Task.isCancelled { throw CancellationError() }
                    guard query.matches(key: statement.text(1)) else { continue }
                    matched += 1
                    if matched > offset { ids.append(statement.int64(0)) }
                    if ids.count == limit { break }
                }
                return ids
            case .popular:
                return try Self.popularIDs(query: query, expression: expression, limit: limit, offset: offset, in: db)
            }
        }
    }

    /// More index hits than this and popular order walks the posters by votes instead.
    static let popularCandidateLimit = 2_000

    /// A page in popular order. With few index hits, every hit is rechecked and ranked. With
    /// many, matches are common, so walking all posters from the most voted down (the
    /// `poster_popular` index) and rechecking each finds a page after a few thousand rows,
    /// where ranking every hit could mean half a million.
    private static func popularIDs(query: SearchQuery, expression: String, limit: Int, offset: Int, in db: Database) throws
        -> [Int64]
    {
        let hits = try db.statement("SELECT rowid FROM search_gram WHERE search_gram MATCH ? LIMIT ?")
            .bind(expression, popularCandidateLimit + 1).map { $0.int64(0) }
        if hits.count <= popularCandidateLimit {
            var ranked: [(votes: Int, id: Int64)] = []
            let lookup = try db.statement(
                "SELECT k.key, p.good1 + p.good2 FROM search_key k JOIN poster p ON p.id = k.poster_id WHERE k.poster_id = ?")
            for (row, id) in hits.enumerated() {
                if row & 0xFF == 0xFF && Task.isCancelled { throw CancellationError() }
                lookup.reset()
                guard let (key, votes) = try lookup.bind(id).first({ ($0.text(0), $0.int(1)) }) else { continue }
                if query.matches(key: key) { ranked.append((votes, id)) }
            }
            ranked.sort { $0.votes != $1.votes ? $0.votes > $1.votes : $0.id > $1.id }
            return ranked.dropFirst(offset).prefix(limit).map(\.id)
        }
        let walk = try db.statement(
            """
            SELECT p.id, k.key FROM poster p JOIN search_key k ON k.poster_id = p.id
            ORDER BY p.good1 + p.good2 DESC, p.id DESC
            """)
        defer { walk.reset() }
        var ids: [Int64] = []
        var matched = 0
        var rows = 0
        while try walk.step() {
            rows += 1
            if rows & 0xFF == 0 && Task.isCancelled { throw CancellationError() }
            guard query.matches(key: walk.text(1)) else { continue }
            matched += 1
            if matched > offset { ids.append(walk.int64(0)) }
            if ids.count == limit { break }
        }
        return ids
    }

    /// A page of the posters matching `query`, with their hashtags (see ``searchIDs(query:order:limit:offset:)``).
    public func search(query: SearchQuery, order: FeedOrder, limit: Int, offset: Int) throws -> [Poster] {
        let ids = try searchIDs(query: query, order: order, limit: limit, offset: offset)
        return try withDatabase { db in
            // A poster deleted between the two reads is simply left out.
            try ids.compactMap { try Self.poster(id: $0, in: db) }
        }
    }

    /// The reference the index is measured and tested against: the same page found by a plain
    /// `LIKE '%word%'` scan of every stored key, in `order`. It reads every key, so it is slow
    /// on a large store; it exists for `tenbin-bench search` and tests. Without a limit it
    /// returns every match.
    public func scanSearchIDs(query: SearchQuery, order: FeedOrder = .new, limit: Int? = nil, offset: Int = 0) throws -> [Int64] {
        guard !query.isEmpty else { return [] }
        let conditions = Array(repeating: #"key LIKE ? ESCAPE '\'"#, count: query.words.count).joined(separator: " AND ")
        let patterns: [any SQLValue] = query.words.map { word in
            var pattern = "%"
            for character in word.unicodeScalars {
                if character == "%" || character == "_" || character == "\\" { pattern += "\\" }
                pattern.unicodeScalars.append(character)
            }
            return pattern + "%"
        }
        return try withDatabase { db in
            let orderBy = order == .new ? "p.id DESC" : "p.good1 + p.good2 DESC, p.id DESC"
            return try db.statement(
                "SELECT p.id FROM search_key k JOIN poster p ON p.id = k.poster_id WHERE \(conditions) ORDER BY \(orderBy) LIMIT ? OFFSET ?"
            ).bind(patterns + [limit ?? -1, max(0, offset)]).map { $0.int64(0) }
        }
    }

    /// The stored search key of a poster (for `check` and tests), or nil when it has none.
    public func searchKey(id: Int64) throws -> String? {
        try withDatabase { db in try db.statement("SELECT key FROM search_key WHERE poster_id = ?").bind(id).first { $0.text(0) } }
    }

    /// What `tenbin check` finds wrong with the search index: posters without a key, keys
    /// without a poster, keys that are not the normal form of their poster's text, and
    /// FTS5's own integrity check of the pieces.
    static func searchProblems(in db: Database) throws -> [String] {
        var problems = try db.statement(
            "SELECT p.id FROM poster p WHERE NOT EXISTS (SELECT 1 FROM search_key k WHERE k.poster_id = p.id)"
        ).map { "poster \($0.int64(0)) has no search key; search cannot find it" }
        problems += try db.statement(
            "SELECT k.poster_id FROM search_key k WHERE NOT EXISTS (SELECT 1 FROM poster p WHERE p.id = k.poster_id)"
        ).map { "a search key remains for deleted poster \($0.int64(0))" }
        let rows = try db.statement("SELECT p.id, p.contents, k.key FROM poster p JOIN search_key k ON k.poster_id = p.id")
            .map { ($0.int64(0), $0.text(1), $0.text(2)) }
        for (id, contents, stored) in rows where stored != SearchText.key(contents: contents, hashtags: try hashtags(of: id, in: db)) {
            problems.append("poster \(id)'s search key does not match its text")
        }
        do {
            try db.execute("INSERT INTO search_gram (search_gram, rank) VALUES ('integrity-check', 0)")
        } catch let error as SQLiteError where !error.isReadOnly {
            // (FTS5 takes the check as an INSERT, which a read-only store refuses outright.)
            problems.append("the search index is damaged (\(error.message))")
        } catch is SQLiteError {}
        return problems
    }
}
