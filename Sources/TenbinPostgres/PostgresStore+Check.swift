import TenbinKit

/// `tenbin check` on PostgreSQL: what the database's own constraints cannot promise.
///
/// PostgreSQL enforces the foreign keys and checks its own pages; what is left is tenbin's
/// meaning: every poster has a search key that is the normal form of its text, whose copy
/// beside the votes (`walk_key`, when there is one) is the same key, whose copies of its
/// images' blob rows match them, hashtags are a flat list of tags, and whose mark of being
/// hidden (`hidden`, schema 16) agrees with `poster_hidden`; and the search index's
/// structure (``PostgresSession/searchIndexProblems()``).
extension PostgresStore {
    /// One line per problem; empty when the database is sound.
    func databaseProblems() throws -> [String] {
        try pool.withConnection { connection in
            var problems: [String] = []
            let missing = try connection.query(
                "SELECT p.id FROM poster p WHERE NOT EXISTS (SELECT 1 FROM search_key k WHERE k.poster_id = p.id) ORDER BY p.id")
            problems += try (0..<missing.count).map { "poster \(try missing.int64($0, 0)) has no search key; search cannot find it" }
            let images = try connection.query(
                """
                SELECT p.id FROM poster p JOIN blob b1 ON b1.digest = p.image1 JOIN blob b2 ON b2.digest = p.image2
                WHERE (\(unescaped: Self.imageColumnNames)) IS DISTINCT FROM
                    (\(unescaped: Self.imageColumns.map { "b\($0.side).\($0.blobColumn)" }.joined(separator: ", "))) ORDER BY p.id
                """)
            problems += try (0..<images.count).map { "poster \(try images.int64($0, 0))'s copies of its images' rows do not match them" }
            let malformed = try connection.query(
                "SELECT id FROM poster WHERE array_ndims(hashtags) > 1 OR array_position(hashtags, NULL) IS NOT NULL ORDER BY id")
            problems += try (0..<malformed.count).map { "poster \(try malformed.int64($0, 0))'s hashtags are not a list of tags" }
            // Schema 16's copy of `poster_hidden` in the poster row, which pages and searches test.
            let hidden = try connection.query(
                "SELECT id, hidden FROM poster p WHERE hidden <> EXISTS (SELECT 1 FROM poster_hidden h WHERE h.poster_id = p.id) ORDER BY id"
            )
            problems += try (0..<hidden.count).map {
                try hidden.bool($0, 1)
                    ? "poster \(try hidden.int64($0, 0))'s row is marked hidden but the poster is not hidden: the public cannot see it (`tenbin moderation restore` clears the mark)"
                    : "poster \(try hidden.int64($0, 0)) is hidden but its row is not marked so: the public sees it (`tenbin moderation hide` marks it)"
            }
            var after: Int64 = 0
            while true {
                let rows = try connection.query(
                    """
                    SELECT p.id, p.contents, p.hashtags, k.key, p.walk_key IS NULL OR p.walk_key = k.key
                    FROM poster p JOIN search_key k ON k.poster_id = p.id WHERE p.id > \(after) ORDER BY p.id LIMIT 2000
                    """)
                guard rows.count > 0 else { break }
                for row in 0..<rows.count {
                    let id = try rows.int64(row, 0)
                    let tags = ArrayLiteral.parse(rows.text(row, 2))
                    let key = rows.text(row, 3)
                    if !SearchText.isKey(key, of: rows.bytesAsText(row, 1), hashtags: tags) {
                        problems.append("poster \(id)'s search key does not match its text")
                    } else if try !rows.bool(row, 4) {
                        problems.append("poster \(id)'s key in the popular index does not match its search key")
                    }
                }
                after = try rows.int64(rows.count - 1, 0)
            }
            return problems + (try PostgresSession(connection).searchIndexProblems())
        }
    }
}
