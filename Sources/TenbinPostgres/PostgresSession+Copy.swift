import TenbinKit

/// Copying a whole board in and out of PostgreSQL: posters in id order, blob rows in digest
/// order, and batch inserts that keep ids, one statement per table per batch (arrays unnested
/// server-side), so a batch of thousands of posters is a handful of round trips.
extension PostgresSession {
    func posters(afterID: Int64, limit: Int) throws -> [Poster] {
        guard limit > 0 else { return [] }
        let rows = try connection.query(
            PostgresStore.posterColumns + " WHERE p.id > $1 ORDER BY p.id LIMIT $2", [.int(afterID), .integer(min(limit, Int(Int32.max)))])
        return try (0..<rows.count).map { try PostgresStore.decodePoster(rows, $0) }
    }

    func blobRecords(after: Digest?, limit: Int) throws -> [BlobRecord] {
        guard limit > 0 else { return [] }
        let rows = try connection.query(
            """
            SELECT b.digest, b.format, b.width, b.height, b.bytes,
                   (SELECT array_agg(u.source ORDER BY u.source, u.options) FROM upload u WHERE u.digest = b.digest),
                   (SELECT array_agg(u.options ORDER BY u.source, u.options) FROM upload u WHERE u.digest = b.digest)
            FROM blob b WHERE b.digest > $1 ORDER BY b.digest LIMIT $2
            """, [.text(after?.hex ?? ""), .integer(min(limit, Int(Int32.max)))])
        return try (0..<rows.count).map { row in
            let sources = rows.isNull(row, 5) ? [] : ArrayLiteral.parse(rows.text(row, 5))
            let options = rows.isNull(row, 6) ? [] : ArrayLiteral.parse(rows.text(row, 6))
            let uploads = zip(sources, options).compactMap { source, key in
                Digest(hex: source).map { UploadKey(source: $0, encodingKey: key) }
            }
            return BlobRecord(image: try PostgresStore.decodeImage(rows, row, from: 0, target: connection.target), uploads: uploads)
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
            SELECT d, f, w, h, n, nullif(s, '') FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::bigint[], $6::text[])
                AS t(d, f, w, h, n, s)
            ON CONFLICT (digest) DO NOTHING
            """,
            [
                .textArray(images.map(\.digest.hex)), .textArray(images.map(\.format.rawValue)), .intArray(images.map(\.width)),
                .intArray(images.map(\.height)), .intArray(images.map(\.bytes)),
                .textArray(records.map { $0.uploads.first?.source.hex ?? "" }),
            ])
        let uploads = records.flatMap { record in record.uploads.map { ($0, record.image.digest) } }
        guard !uploads.isEmpty else { return }
        try connection.query(
            """
            INSERT INTO upload (source, options, digest) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
            ON CONFLICT (source, options) DO UPDATE SET digest = excluded.digest
            """, [.textArray(uploads.map(\.0.source.hex)), .textArray(uploads.map(\.0.encodingKey)), .textArray(uploads.map(\.1.hex))])
    }

    func insertPosters(_ records: [PosterRecord]) throws {
        guard !records.isEmpty else { return }
        try takeInsertLockIfWriting()
        // A bigger pending list lets the GIN index take a batch's pieces in one merge.
        try connection.execute("SET LOCAL gin_pending_list_limit = '64MB'")
        let posters = records.map(\.poster)
        let ids = posters.map(\.id)
        try connection.query(
            """
            INSERT INTO poster (id, contents, good1, good2, created_at, image1, image2, hashtags, walk_key, \(PostgresStore.imageColumnNames))
            SELECT i, decode(c, 'hex'), g1, g2, t, a, b, h::text[], \(PostgresStore.walkKeySQL("k")), f1, w1, h1, n1, f2, w2, h2, n2
            FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[],
                \(PostgresStore.imageColumnUnnest(from: 10)))
                AS u(i, c, g1, g2, t, a, b, h, k, f1, w1, h1, n1, f2, w2, h2, n2)
            """,
            [
                .intArray(ids), .textArray(posters.map { Self.hex($0.contents) }), .intArray(posters.map(\.good1)),
                .intArray(posters.map(\.good2)), .intArray(posters.map(\.createdAt.secondsSince1970)),
                .textArray(posters.map(\.images[0].digest.hex)), .textArray(posters.map(\.images[1].digest.hex)),
                .textArray(posters.map { SQLParameter.textArrayLiteral($0.hashtags) }), .textArray(records.map(\.search.key)),
            ] + PostgresStore.imageColumnArrays(posters.map(\.images)))
        try connection.query(
            """
            INSERT INTO search_key (poster_id, key, grams)
            SELECT i, k, string_to_array(d, ' ') FROM unnest($1::bigint[], $2::text[], $3::text[]) AS t(i, k, d)
            """, [.intArray(ids), .textArray(records.map(\.search.key)), .textArray(records.map(\.search.document))])
        // Ids given here do not move the identity sequence: move it now, so a copy interrupted
        // after this batch leaves a store whose next post gets a new id.
        try reservePosterIDs(through: ids.max() ?? 0)
    }

    func reservePosterIDs(through id: Int64) throws {
        try takeInsertLockIfWriting()
        try connection.query(
            """
            SELECT setval(s.name::regclass, $1::bigint) FROM (SELECT pg_get_serial_sequence('poster', 'id') AS name) s
            WHERE $1::bigint > coalesce(pg_sequence_last_value(s.name::regclass), 0)
            """, [.int(id)])
    }

    /// `text`'s UTF-8 bytes in hex, for a `bytea` column filled from a `text[]` (`decode(…, 'hex')`).
    static func hex(_ text: String) -> String {
        Hex.string(text.utf8)
    }
}
