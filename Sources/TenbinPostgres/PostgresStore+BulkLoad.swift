import TenbinKit

/// A bulk load into an empty database (`tenbin copy`). Through schema step 14 the GIN index
/// was dropped first and built once at the end (half a copy's time); since step 15 each batch
/// writes its segment of posting lists, cheaper than building any index afterwards, so only
/// the tidying after the load remains.
extension PostgresStore {
    /// Nothing to prepare since step 15 (the index is written batch by batch); returns false,
    /// as it did when the database held posters already.
    @discardableResult
    package func beginBulkLoad() throws -> Bool {
        false
    }

    /// Tidies up after a bulk load: moves the search index's merges on to the end (a copy's
    /// last batches leave some under way), marks the new rows visible to index-only scans, and
    /// gathers statistics so the planner knows the tables' sizes, instead of waiting for
    /// autovacuum.
    package func finishBulkLoad() throws {
        try translatingErrors {
            try pool.transaction { connection in
                try PostgresSession(connection).mergeSearch(budget: Int.max)
            }
            try pool.withConnection { connection in
                try connection.execute("VACUUM (ANALYZE) blob, upload, poster, search_key, search_segment, search_posting")
            }
        }
    }
}
