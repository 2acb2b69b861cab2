import TenbinKit

/// Copying a whole board in and out of PostgreSQL: posters in id order, blob rows in digest
/// order, and batch inserts that keep ids, one statement per table per batch (arrays unnested
/// server-side), so a batch of thousands of posters is a handful of round trips.
extension PostgresSession {
    func posters(afterID: Int64, limit: Int) throws -> [Poster] {
        guard limit > 0 else { return [] }
        let rows = try connection.query(
            "\(unescaped: PostgresStore.posterColumns) WHERE p.id > \(afterID) ORDER BY p.id LIMIT \(min(limit, Int(Int32.max)))")
        return try (0..<rows.count).map { try PostgresStore.decodePoster(rows, $0) }
    }

    func blobRecords(after: Digest?, limit: Int) throws -> [BlobRecord] {
        guard limit > 0 else { return [] }
        let rows = try connection.query(
            """
            SELECT b.digest, b.format, b.width, b.height, b.bytes,
                   (SELECT array_agg(u.source ORDER BY u.source, u.options) FROM upload u WHERE u.digest = b.digest),
                   (SELECT array_agg(u.options ORDER BY u.source, u.options) FROM upload u WHERE u.digest = b.digest),
                   b.phash
            FROM blob b WHERE b.digest > \(after?.hex ?? "") ORDER BY b.digest LIMIT \(min(limit, Int(Int32.max)))
            """)
        return try (0..<rows.count).map { row in
            let sources = rows.isNull(row, 5) ? [] : ArrayLiteral.parse(rows.text(row, 5))
            let options = rows.isNull(row, 6) ? [] : ArrayLiteral.parse(rows.text(row, 6))
            let uploads = zip(sources, options).compactMap { source, key in
                Digest(hex: source).map { UploadKey(source: $0, encodingKey: key) }
            }
            return BlobRecord(
                image: try PostgresStore.decodeImage(rows, row, from: 0, target: connection.target), uploads: uploads,
                perceptualHash: rows.isNull(row, 7) ? nil : PerceptualHash(storedValue: try rows.int64(row, 7)))
        }
    }

    /// The identity sequence's last value (NULL until one was drawn) or the highest id present,
    /// whichever is higher.
    func lastPosterID() throws -> Int64 {
        try connection.query(
            """
            SELECT greatest(coalesce(pg_sequence_last_value(pg_get_serial_sequence('poster', 'id')::regclass), 0),
                            coalesce((SELECT max(id) FROM poster), 0))
            """
        ).int64(0, 0)
    }

    func insertBlobs(_ records: [BlobRecord]) throws {
        guard !records.isEmpty else { return }
        let images = records.map(\.image)
        try connection.query(
            """
            INSERT INTO blob (digest, format, width, height, bytes, source)
            SELECT d, f, w, h, n, nullif(s, '') FROM unnest(\(images.map(\.digest.hex))::text[], \(images.map(\.format.rawValue))::text[], \
            \(images.map(\.width))::int[], \(images.map(\.height))::int[], \(images.map(\.bytes))::bigint[], \
            \(records.map { $0.uploads.first?.source.hex ?? "" })::text[])
                AS t(d, f, w, h, n, s)
            ON CONFLICT (digest) DO NOTHING
            """)
        var hashes: [Digest: PerceptualHash] = [:]
        for record in records { hashes[record.image.digest] = record.perceptualHash }
        try setPerceptualHashes(hashes)
        let uploads = records.flatMap { record in record.uploads.map { ($0, record.image.digest) } }
        guard !uploads.isEmpty else { return }
        try connection.query(
            """
            INSERT INTO upload (source, options, digest) SELECT * FROM unnest(\(uploads.map(\.0.source.hex))::text[], \
            \(uploads.map(\.0.encodingKey))::text[], \(uploads.map(\.1.hex))::text[])
            ON CONFLICT (source, options) DO UPDATE SET digest = excluded.digest
            """)
    }

    func insertPosters(_ records: [PosterRecord]) throws {
        guard !records.isEmpty else { return }
        try takeInsertLockIfWriting()
        let posters = records.map(\.poster)
        let ids = posters.map(\.id)
        let hashtags = posters.map { PostgresBind.textArrayLiteral($0.hashtags) }
        try connection.query(
            """
            INSERT INTO poster (id, contents, good1, good2, created_at, image1, image2, hashtags, walk_key, \(unescaped: PostgresStore.imageColumnNames), alt1, alt2, trend)
            SELECT i, decode(c, 'hex'), g1, g2, t, a, b, h::text[], \(PostgresStore.walkKeySQL("k")), f1, w1, h1, n1, f2, w2, h2, n2, x1, x2, s
            FROM unnest(\(ids)::bigint[], \(posters.map { Self.hex($0.contents) })::text[], \(posters.map(\.good1))::bigint[], \
            \(posters.map(\.good2))::bigint[], \(posters.map(\.createdAt.secondsSince1970))::bigint[], \
            \(posters.map(\.images[0].digest.hex))::text[], \(posters.map(\.images[1].digest.hex))::text[], \(hashtags)::text[], \
            \(records.map(\.search.key))::text[], \(PostgresStore.imageColumnUnnest(posters.map(\.images))), \
            \(posters.map(\.alt1))::text[], \(posters.map(\.alt2))::text[], \(posters.map(\.trendingScore))::bigint[])
                AS u(i, c, g1, g2, t, a, b, h, k, f1, w1, h1, n1, f2, w2, h2, n2, x1, x2, s)
            """)
        try connection.query(
            """
            INSERT INTO search_key (poster_id, key) SELECT i, k FROM unnest(\(ids)::bigint[], \(records.map(\.search.key))::text[]) AS t(i, k)
            """)
        try indexSearch(ids: ids, search: records.map(\.search))
        // Ids given here do not move the identity sequence: move it now, so a copy interrupted
        // after this batch leaves a store whose next post gets a new id.
        try reservePosterIDs(through: ids.max() ?? 0)
    }

    func reservePosterIDs(through id: Int64) throws {
        try takeInsertLockIfWriting()
        let through = PostgresQuery.Shared(id)
        try connection.query(
            """
            SELECT setval(s.name::regclass, \(through)::bigint) FROM (SELECT pg_get_serial_sequence('poster', 'id') AS name) s
            WHERE \(through)::bigint > coalesce(pg_sequence_last_value(s.name::regclass), 0)
            """)
    }

    /// `text`'s UTF-8 bytes in hex, for a `bytea` column filled from a `text[]` (`decode(…, 'hex')`).
    static func hex(_ text: String) -> String {
        Hex.string(utf8Of: text)
    }
}
