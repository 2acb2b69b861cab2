import TenbinKit

/// A bulk load into an empty database (`tenbin copy`). Until schema step 14 the GIN search
/// index was dropped for it and built once at the end (it halved a copy's time); the posting
/// lists since then take a batch as a few hundred rows, so the load writes them as it goes
/// and only the statistics are left for the end.
extension PostgresStore {
    /// Whether no poster is stored yet (a load into it is a bulk load). Nothing is dropped:
    /// the search index is written batch by batch.
    @discardableResult
    package func beginBulkLoad() throws -> Bool {
        try translatingErrors {
            try pool.withConnection { connection in try connection.query("SELECT NOT EXISTS (SELECT 1 FROM poster)").bool(0, 0) }
        }
    }

    /// Tidies up after a bulk load: marks the new rows visible to index-only scans and gathers
    /// statistics so the planner knows the tables' sizes, instead of waiting for autovacuum.
    package func finishBulkLoad() throws {
        try translatingErrors {
            try pool.withConnection { connection in
                try connection.execute("VACUUM (ANALYZE) blob, upload, poster, search_key, search_segment, search_posting")
            }
        }
    }
}
