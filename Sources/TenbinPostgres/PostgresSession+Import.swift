import TenbinKit

/// An import batch in a few statements (`Board.commitImport`): the identity candidates of
/// every poster in one, then the new posters and their search keys in one, whatever the
/// batch's size. Both run under the insert lock, so two imports of the same poster take turns
/// (the second finds the first's) and ids commit in the order they are drawn.
extension PostgresSession {
    /// The ids of the posters with the same two images and contents as each of `posters`, each
    /// with its 1-based place in `posters`. The identity hash is the only indexed expression
    /// it tests (see schema step 3).
    static func identityLookup(_ posters: [NewPoster]) -> PostgresQuery {
        """
        SELECT u.n, p.id FROM unnest(\(posters.map(\.images[0].digest.hex))::text[], \(posters.map(\.images[1].digest.hex))::text[], \
        \(posters.map { hex($0.contents) })::text[]) WITH ORDINALITY AS u(a, b, c, n)
        JOIN poster p ON \(PostgresSchema.identityKey("p.image1", "p.image2", "p.contents"))
            = \(PostgresSchema.identityKey("u.a", "u.b", "decode(u.c, 'hex')"))
            AND p.image1 || p.image2 = u.a || u.b AND p.contents = decode(u.c, 'hex')
        ORDER BY u.n, p.id
        """
    }

    func posterIDs(matching posters: [NewPoster]) throws -> [[Int64]] {
        guard !posters.isEmpty else { return [] }
        try takeInsertLockIfWriting()
        let rows = try connection.query(Self.identityLookup(posters))
        var candidates = Array(repeating: [Int64](), count: posters.count)
        for row in 0..<rows.count { try candidates[rows.int(row, 0) - 1].append(rows.int64(row, 1)) }
        return candidates
    }

    /// Draws the batch's ids from the identity sequence (ascending in the batch's order), then
    /// writes every poster row and its search key in one statement, and the batch's segment of
    /// the search index in another (PostgresSession+SearchIndex.swift). Ids travel as
    /// a parameter rather than being paired with the rows in SQL: that join's estimates made
    /// the planner JIT-compile and spill sorts to disk (2.6 s for 16,000 posters, against 1.4 s).
    func insertPosters(_ posters: [NewPoster], createdAt: Timestamp, search: [SearchRecord]) throws -> [Int64] {
        // Invariant of the callers: one search record per poster.
        precondition(posters.count == search.count, "one search record per poster")
        guard !posters.isEmpty else { return [] }
        try takeInsertLockIfWriting()
        try stepReadings()
        // The batch's ids as one range: every poster insert holds the insert lock, so nothing
        // draws from the sequence between these two calls (one nextval a poster took 9 µs each).
        let first = try connection.query(
            """
            WITH s AS (SELECT pg_get_serial_sequence('poster', 'id')::regclass AS name), f AS (SELECT nextval(name) AS id FROM s)
            SELECT f.id, setval(s.name, f.id + \(posters.count) - 1) FROM s, f
            """
        ).int64(0, 0)
        let ids = Array(first..<first + Int64(posters.count))
        let (shared, keys) = (PostgresQuery.Shared(ids), PostgresQuery.Shared(search.map(\.key)))
        let hashtags = posters.map { PostgresBind.textArrayLiteral($0.hashtags) }
        let rows = try connection.query(
            """
            WITH inserted AS (
                INSERT INTO poster (id, contents, created_at, image1, image2, hashtags, walk_key, \(unescaped: PostgresStore.imageColumnNames), alt1, alt2)
                SELECT i, decode(c, 'hex'), \(createdAt.secondsSince1970), a, b, h::text[], \(PostgresStore.walkKeySQL("k")), \
            f1, w1, h1, n1, f2, w2, h2, n2, x1, x2
                FROM unnest(\(shared)::bigint[], \(posters.map { Self.hex($0.contents) })::text[], \(posters.map(\.images[0].digest.hex))::text[], \
            \(posters.map(\.images[1].digest.hex))::text[], \(hashtags)::text[], \(keys)::text[], \
            \(PostgresStore.imageColumnUnnest(posters.map(\.images))), \(posters.map(\.alt1))::text[], \(posters.map(\.alt2))::text[])
                    AS u(i, c, a, b, h, k, f1, w1, h1, n1, f2, w2, h2, n2, x1, x2))
            INSERT INTO search_key (poster_id, key) SELECT i, k FROM unnest(\(shared)::bigint[], \(keys)::text[]) AS u(i, k)
            """)
        guard ids.count == posters.count, rows.changes == posters.count else {
            throw PostgresError(
                kind: .internal, sqlState: nil, message: "inserting \(posters.count) posters wrote \(rows.changes)",
                target: connection.target.description)
        }
        try indexSearch(ids: ids, search: search)
        changed.formUnion(ids)
        return ids
    }
}
