import TenbinKit

/// `tenbin check` on PostgreSQL: what the database's own constraints cannot promise.
///
/// PostgreSQL enforces the foreign keys and checks its own pages; what is left is tenbin's
/// meaning: every poster has a search key that is the normal form of its text and pieces
/// that are the core's pieces of that key, and hashtags sit at positions 0, 1, 2….
extension PostgresStore {
    /// One line per problem; empty when the database is sound.
    func databaseProblems() throws -> [String] {
        try pool.withConnection { connection in
            var problems: [String] = []
            if try connection.query("SELECT to_regclass('\(Self.searchIndexName)') IS NULL").bool(0, 0) {
                problems.append("the search index is missing (a copy into this database was interrupted; resume it)")
            }
            let missing = try connection.query(
                "SELECT p.id FROM poster p WHERE NOT EXISTS (SELECT 1 FROM search_key k WHERE k.poster_id = p.id) ORDER BY p.id")
            problems += (0..<missing.count).map { "poster \(missing.int64($0, 0)) has no search key; search cannot find it" }
            let gaps = try connection.query(
                "SELECT poster_id FROM hashtag GROUP BY poster_id HAVING max(position) + 1 <> count(*) ORDER BY poster_id")
            problems += (0..<gaps.count).map { "poster \(gaps.int64($0, 0))'s hashtags are out of order" }
            var after: Int64 = 0
            while true {
                let rows = try connection.query(
                    """
                    SELECT p.id, p.contents, (SELECT array_agg(h.tag ORDER BY h.position) FROM hashtag h WHERE h.poster_id = p.id),
                           k.key, k.grams
                    FROM poster p JOIN search_key k ON k.poster_id = p.id WHERE p.id > $1 ORDER BY p.id LIMIT 2000
                    """, [.int(after)])
                guard rows.count > 0 else { break }
                for row in 0..<rows.count {
                    let id = rows.int64(row, 0)
                    let tags = rows.isNull(row, 2) ? [] : ArrayLiteral.parse(rows.text(row, 2))
                    let key = SearchText.key(contents: rows.bytesAsText(row, 1), hashtags: tags)
                    if rows.text(row, 3) != key {
                        problems.append("poster \(id)'s search key does not match its text")
                    } else if Set(ArrayLiteral.parse(rows.text(row, 4))) != Set(SearchGrams.tokens(forKey: key)) {
                        problems.append("poster \(id)'s search pieces do not match its key")
                    }
                }
                after = rows.int64(rows.count - 1, 0)
            }
            return problems
        }
    }
}
