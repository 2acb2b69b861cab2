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
            if let query = feed.searchQuery {
                // The same search as `tenbin search`, on this connection and snapshot.
                let ids = try searchIDs(query: query, order: feed.order, limit: feed.limit, offset: 0, in: db)
                return (try ids.compactMap { try poster(id: $0, in: db) }, version)
            }
            let orderBy = feed.order == .new ? "p.id DESC" : "p.good1 + p.good2 DESC, p.id DESC"
            var posters = try db.statement(posterColumns + " ORDER BY \(orderBy) LIMIT ?").bind(feed.limit).map(decodePoster)
            for index in posters.indices {
                posters[index].hashtags = try hashtags(of: posters[index].id, in: db)
            }
            return (posters, version)
        }
    }
}
