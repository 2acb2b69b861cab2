import TenbinKit

/// Readings for the posters of a database made before search by reading (schema step 14),
/// given in steps as on SQLite (SQLiteStore+Readings.swift): a board of a million posters is
/// not re-keyed in the transaction that migrates it.
///
/// `search_reading` holds one row while posters remain whose keys were written without
/// readings: every poster below `below`. Each write that indexes posters (a post, an edit, an
/// import's batch) also re-keys the next ``postersGivenReadingsPerWrite`` posters below the
/// mark, newest first: their `search_key` rows and `walk_key` are written again where they
/// differ (``storeSearch(ids:search:)``). Once none remain the row is deleted. Until then a
/// poster not yet reached is found as written, as before; `check --repair` writes every key
/// again at once and deletes the row (``clearSearch()``). Where MeCab is missing nothing
/// moves: keys written then would have no readings either.
///
/// The row is read `FOR UPDATE`, so two servers' writes take the next posters in turn, and the
/// posters' rows are locked in ascending id order before they change, as a vote batch locks
/// them, so a step and a batch never deadlock.
extension PostgresSession {
    /// Step 14's table; `INSERT` marks every poster stored so far (none: no row).
    static let readingSchemaSQL = """
        CREATE TABLE search_reading (below bigint NOT NULL);
        INSERT INTO search_reading (below) SELECT max(id) + 1 FROM poster HAVING count(*) > 0
        """

    /// How many posters a write re-keys: about 10 ms of MeCab and a statement of a few hundred
    /// rows, small beside an import's batch and bearable for a single post; a million posters
    /// take 2,000 writes.
    static let postersGivenReadingsPerWrite = 500

    /// Re-keys the next posters waiting for readings (see the type's summary), inside the
    /// write's transaction.
    func stepReadings() throws {
        guard SearchReadings.unavailable == nil else { return }
        let mark = try connection.query("SELECT below FROM search_reading FOR UPDATE")
        guard mark.count > 0 else { return }
        let below = try mark.int64(0, 0)
        let limit = Self.postersGivenReadingsPerWrite
        let next = try connection.query("SELECT id FROM poster WHERE id < \(below) ORDER BY id DESC LIMIT \(limit)")
        var ids: [Int64] = []
        for row in 0..<next.count { ids.append(try next.int64(row, 0)) }
        if ids.count == limit, let lowest = ids.last {
            try connection.query("UPDATE search_reading SET below = \(lowest)")
        } else {
            try connection.execute("DELETE FROM search_reading")
        }
        guard !ids.isEmpty else { return }
        // Ascending, as vote batches lock poster rows.
        try connection.query("SELECT 1 FROM poster WHERE id = ANY(\(ids)::bigint[]) ORDER BY id FOR UPDATE")
        let posters = try posters(ids: ids)
        try storeSearch(ids: posters.map(\.id), search: posters.map { SearchRecord(contents: $0.contents, hashtags: $0.hashtags) })
    }
}
