import TenbinKit

/// Readings for the posters of a store made before search by reading (schema 15), given in
/// steps, as the index's merges are: a store of a million posters is not re-keyed in the
/// transaction that opens it.
///
/// `search_reading` holds one row while posters remain whose keys were written without
/// readings: every poster below `below` (newer ones were keyed with readings). Each write that
/// indexes posters (a post, an edit, an import's batch) also re-keys the next
/// ``postersGivenReadingsPerWrite`` posters below the mark, newest first, in its own segment:
/// the poster's old key goes, its old entries are marked stale (as an edit's are), and its new
/// key and pieces are written with the batch. Once none remain the row is deleted. Until then
/// a poster not yet reached is found as written, as before (its key is still right:
/// ``SearchText/isKey(_:of:hashtags:)``); `check --repair` writes every key again at once and
/// deletes the row. Where MeCab is missing nothing moves: keys written then would have no
/// readings either.
extension SQLiteSession {
    /// Schema 15's table; `INSERT` marks every poster stored so far (none: no row).
    static let readingSchema = """
        CREATE TABLE search_reading (
            below INTEGER NOT NULL
        );

        """

    /// Migration 14: every poster stored so far waits for its readings.
    static let readingMigration = readingSchema + "INSERT INTO search_reading (below) SELECT max(id) + 1 FROM poster HAVING count(*) > 0;\n"

    /// How many posters a write re-keys: about 10 ms of MeCab and a few hundred rows, small
    /// beside a batch of 20,000 and bearable for a single post; a million posters take 2,000
    /// writes.
    static let postersGivenReadingsPerWrite = 500

    /// Re-keys the next posters waiting for readings (see the type's summary) and returns
    /// those whose key changed, with their new records, for the segment the write is about to
    /// write (inside its transaction).
    func stepReadings() throws -> (ids: [Int64], records: [SearchRecord]) {
        guard let below = try db.statement("SELECT below FROM search_reading").first({ $0.int64(0) }),
            SearchReadings.unavailable == nil
        else { return ([], []) }
        let limit = Self.postersGivenReadingsPerWrite
        let ids = try db.statement("SELECT id FROM poster WHERE id < ? ORDER BY id DESC LIMIT ?").bind(below, limit).map { $0.int64(0) }
        if ids.count == limit, let lowest = ids.last {
            try db.statement("UPDATE search_reading SET below = ?").bind(lowest).run()
        } else {
            try db.execute("DELETE FROM search_reading")
        }
        var changed: ([Int64], [SearchRecord]) = ([], [])
        let storedKey = try db.statement("SELECT key FROM search_key WHERE poster_id = ?")
        for poster in try posters(ids: ids) {
            let record = SearchRecord(contents: poster.contents, hashtags: poster.hashtags)
            storedKey.reset()
            guard try storedKey.bind(poster.id).first({ $0.text(0) }) != record.key else { continue }
            try removeSearch(id: poster.id)
            changed.0.append(poster.id)
            changed.1.append(record)
        }
        return changed
    }
}
