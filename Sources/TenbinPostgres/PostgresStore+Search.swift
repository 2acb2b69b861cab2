import TenbinKit

/// Search: each poster's normalised key and the core's index tokens for it (``SearchRecord``),
/// in a GIN-indexed `text[]`. The index only narrows candidates (``PostgresSession``); the core
/// rechecks every candidate against its key, so the answers are the same as the SQLite
/// backend's for every query, 1- and 2-character words included (pg_trgm cannot serve those,
/// and Debian ships no pg_bigm).
extension PostgresStore {
    /// Writes the keys and pieces of posters just inserted or edited (inside their transaction).
    static func indexSearchKeys(ids: [Int64], posters: [(contents: String, hashtags: [String])], on connection: Connection) throws {
        guard !ids.isEmpty else { return }
        let records = posters.map { SearchRecord(contents: $0.contents, hashtags: $0.hashtags) }
        let keys = records.map(\.key)
        // One array literal per poster, unnested as text and cast back: unnest would flatten
        // an array of arrays.
        let grams = records.map { record -> String in
            guard case .text(let literal) = SQLParameter.textArray(record.tokens) else { return "{}" }
            return literal
        }
        try connection.query(
            "INSERT INTO search_key (poster_id, key, grams) SELECT id, k, g::text[] FROM unnest($1::bigint[], $2::text[], $3::text[]) AS t(id, k, g)",
            [.intArray(ids), .textArray(keys), .textArray(grams)])
    }

    /// Migration 2: indexes every poster stored before search existed.
    static func indexAllPosters(on connection: Connection) throws {
        var after: Int64 = 0
        while true {
            let rows = try connection.query(
                """
                SELECT p.id, p.contents, (SELECT array_agg(h.tag ORDER BY h.position) FROM hashtag h WHERE h.poster_id = p.id)
                FROM poster p WHERE p.id > $1 ORDER BY p.id LIMIT 1000
                """, [.int(after)])
            guard rows.count > 0 else { return }
            let ids = (0..<rows.count).map { rows.int64($0, 0) }
            let texts = (0..<rows.count).map {
                (contents: rows.bytesAsText($0, 1), hashtags: rows.isNull($0, 2) ? [] : ArrayLiteral.parse(rows.text($0, 2)))
            }
            try indexSearchKeys(ids: ids, posters: texts, on: connection)
            after = ids.last!  // rows.count > 0
        }
    }
}
