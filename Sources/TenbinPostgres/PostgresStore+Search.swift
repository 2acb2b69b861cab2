import TenbinKit

/// Search: each poster's normalised key and the core's index pieces for it, in a GIN-indexed
/// `text[]`. The index only narrows candidates; the core rechecks every candidate against its
/// key, so the answers are the same as the SQLite backend's for every query, 1- and
/// 2-character words included (pg_trgm cannot serve those, and Debian ships no pg_bigm).
extension PostgresStore {
    /// Writes the keys and pieces of posters just inserted or edited (inside their transaction).
    static func indexSearchKeys(ids: [Int64], posters: [(contents: String, hashtags: [String])], on connection: Connection) throws {
        guard !ids.isEmpty else { return }
        let keys = posters.map { SearchText.key(contents: $0.contents, hashtags: $0.hashtags) }
        // One array literal per poster, unnested as text and cast back: unnest would flatten
        // an array of arrays.
        let grams = keys.map { key -> String in
            guard case .text(let literal) = SQLParameter.textArray(SearchIndexGrams.document(forKey: key)) else { return "{}" }
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

    /// A search candidate: a poster whose pieces include every piece asked for, with its key
    /// (for the core's recheck) and its votes (for popular order).
    public struct SearchCandidate: Sendable, Hashable {
        /// The poster.
        public let id: Int64
        /// Its stored search key.
        public let key: String
        /// good1 + good2.
        public let votes: Int
    }

    /// Up to `limit` candidates holding every one of `grams`, in `order`, after `cursor` (the
    /// last candidate of the previous batch), from one statement.
    public func searchCandidates(grams: [String], order: FeedOrder, after cursor: SearchCandidate?, limit: Int) throws
        -> [SearchCandidate]
    {
        guard !grams.isEmpty, limit > 0 else { return [] }
        return try pool.withConnection { connection in
            var parameters: [SQLParameter] = [.textArray(grams), .integer(limit)]
            var condition = ""
            if let cursor {
                switch order {
                case .new:
                    condition = " AND k.poster_id < $3"
                    parameters.append(.int(cursor.id))
                case .popular:
                    condition = " AND ((p.good1 + p.good2), p.id) < ($3, $4)"
                    parameters += [.integer(cursor.votes), .int(cursor.id)]
                }
            }
            let rows = try connection.query(
                """
                SELECT k.poster_id, k.key, p.good1 + p.good2 FROM search_key k JOIN poster p ON p.id = k.poster_id
                WHERE k.grams @> $1::text[]\(condition) ORDER BY \(Self.orderBy(order)) LIMIT $2
                """, parameters)
            return (0..<rows.count).map { SearchCandidate(id: rows.int64($0, 0), key: rows.text($0, 1), votes: rows.int($0, 2)) }
        }
    }

    /// The stored search key of a poster, or nil when it has none.
    public func searchKey(id: Int64) throws -> String? {
        try pool.withConnection { connection in
            let rows = try connection.query("SELECT key FROM search_key WHERE poster_id = $1", [.int(id)])
            return rows.count == 0 ? nil : rows.text(0, 0)
        }
    }
}

/// The index pieces of a key and of a query (placeholder until the core hands them over).
enum SearchIndexGrams {
    /// Every distinct one- and two-character piece of each line of `key`.
    static func document(forKey key: String) -> [String] {
        var seen: Set<String> = []
        var pieces: [String] = []
        for line in key.split(separator: "\n") {
            let scalars = Array(line.unicodeScalars)
            for length in 1...2 where scalars.count >= length {
                for start in 0...(scalars.count - length) {
                    var piece = String.UnicodeScalarView()
                    piece.append(contentsOf: scalars[start..<(start + length)])
                    if seen.insert(String(piece)).inserted { pieces.append(String(piece)) }
                }
            }
        }
        return pieces
    }

    /// The pieces every match of `words` must hold: a short word whole, a longer one's pairs.
    static func query(_ words: [String]) -> [String] {
        var seen: Set<String> = []
        var pieces: [String] = []
        for word in words {
            let scalars = Array(word.unicodeScalars)
            let wanted =
                scalars.count <= 2
                ? [word]
                : (0...(scalars.count - 2)).map { String(String.UnicodeScalarView(scalars[$0..<($0 + 2)])) }
            for piece in wanted where seen.insert(piece).inserted { pieces.append(piece) }
        }
        return pieces
    }
}
