/// Reading feeds for live observation, on a connection the observer owns.
extension PosterStore {
    /// SQLite's count of commits made by other connections, as this connection has seen it.
    ///
    /// Two calls on the same connection return different values exactly when another
    /// connection (of any process) committed in between; it costs a look at the WAL index,
    /// not a read of the data.
    static func dataVersion(of db: Database) throws -> Int64 {
        try db.statement("PRAGMA data_version").first { $0.int64(0) } ?? 0
    }

    /// Whether the database has tenbin's full schema yet (another process may be creating it).
    static func hasSchema(_ db: Database) throws -> Bool {
        try Migrations.version(of: db) >= Migrations.steps.count
    }

    /// The posters of `feed` and the data version they were read at, from one consistent
    /// snapshot (one read transaction).
    static func read(_ feed: Feed, in db: Database) throws -> (posters: [Poster], version: Int64) {
        try db.transaction(immediate: false) {
            // Read first inside the transaction, so the version is that of the snapshot the
            // posters come from (or older, which only costs one extra re-read later).
            let version = try dataVersion(of: db)
            let filter = feedQueryFilter(feed.queryWords)
            let orderBy = feed.order == .new ? "p.id DESC" : "p.good1 + p.good2 DESC, p.id DESC"
            let statement = try db.statement(posterColumns + filter.sql + " ORDER BY \(orderBy) LIMIT ?")
            try statement.bind(filter.values + [feed.limit])
            var posters = try statement.map(decodePoster)
            for index in posters.indices {
                posters[index].hashtags = try hashtags(of: posters[index].id, in: db)
            }
            return (posters, version)
        }
    }

    /// A placeholder for search until tenbin's search index lands (swap this for it): every
    /// word must appear in the contents or in one hashtag, ignoring ASCII case only (no width
    /// or kana folding), found by a scan.
    static func feedQueryFilter(_ words: [String]) -> (sql: String, values: [any SQLValue]) {
        guard !words.isEmpty else { return ("", []) }
        let condition =
            "(instr(lower(p.contents), ?) > 0 OR EXISTS (SELECT 1 FROM hashtag h WHERE h.poster_id = p.id AND instr(lower(h.tag), ?) > 0))"
        let sql = " WHERE " + Array(repeating: condition, count: words.count).joined(separator: " AND ")
        // SQLite's lower() folds ASCII only; fold the words the same way.
        let folded = words.map { word in
            String(
                String.UnicodeScalarView(word.unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar(UInt8($0.value) + 32) : $0 }))
        }
        return (sql, folded.flatMap { [$0, $0] as [any SQLValue] })
    }
}
