import TenbinKit

/// What importing one poster did (the backend's own copy until the seam defines it).
extension PostgresStore {
    /// Inserts posters in one transaction, ids in the array's order. With `deduplicate`, a
    /// poster identical (same two images, contents and hashtags) to one already stored or
    /// earlier in the batch is not inserted, and its outcome names the existing id.
    /// `beforeCommit` runs inside the transaction, holding the locks of every digest the
    /// posters reference, to make sure the blob files exist.
    public func insert(
        _ posters: [NewPoster], createdAt: Timestamp, encodingKey: String, deduplicate: Bool = false,
        beforeCommit: () throws -> Void
    ) throws -> [(id: Int64, inserted: Bool)] {
        guard !posters.isEmpty else {
            try beforeCommit()
            return []
        }
        let outcomes = try pool.transaction { connection -> [(id: Int64, inserted: Bool)] in
            // One at a time: ids are drawn and committed in the same order (see insertLock),
            // and two imports of the same poster cannot both add it.
            try connection.query(
                "SELECT pg_advisory_xact_lock($1, $2)", [.integer(PostgresSchema.lockSpace), .integer(PostgresSchema.insertLock)])
            let digests = Set(posters.flatMap { $0.images.map(\.digest) })
            try Self.lockBlobs(digests, on: connection)
            try Self.insertImageRows(posters, encodingKey: encodingKey, on: connection)
            var outcomes: [(id: Int64, inserted: Bool)?] = Array(repeating: nil, count: posters.count)
            var fresh: [Int] = []
            if deduplicate {
                var seen: [PosterIdentity: Int] = [:]
                for (index, poster) in posters.enumerated() {
                    let identity = PosterIdentity(poster)
                    if let earlier = seen[identity] {
                        outcomes[index] = (-Int64(earlier) - 1, false)  // resolved below, once ids exist
                    } else if let id = try Self.matchingPoster(poster, on: connection) {
                        outcomes[index] = (id, false)
                    } else {
                        seen[identity] = index
                        fresh.append(index)
                    }
                }
            } else {
                fresh = Array(posters.indices)
            }
            let ids = try Self.insertPosterRows(fresh.map { posters[$0] }, createdAt: createdAt, on: connection)
            for (index, id) in zip(fresh, ids) { outcomes[index] = (id, true) }
            for index in outcomes.indices where outcomes[index]!.id < 0 {
                // An earlier poster of the same batch: its id.
                outcomes[index] = (outcomes[Int(-outcomes[index]!.id - 1)]!.id, false)
            }
            try beforeCommit()
            return outcomes.map { $0! }
        }
        notifier.changed(outcomes.filter(\.inserted).map(\.id))
        return outcomes
    }

    /// Blob rows (once each) and the uploads they came from.
    private static func insertImageRows(_ posters: [NewPoster], encodingKey: String, on connection: Connection) throws {
        var blobs: [String: StoredImage] = [:]
        var uploads: [String: String] = [:]
        for poster in posters {
            for (image, source) in zip(poster.images, poster.sources) {
                if blobs[image.digest.hex] == nil { blobs[image.digest.hex] = image }
                if let source { uploads[source.hex] = image.digest.hex }
            }
        }
        let images = blobs.values.sorted { $0.digest < $1.digest }
        let sourceOf: [String: String] = Dictionary(
            posters.flatMap { zip($0.images, $0.sources).compactMap { image, source in source.map { (image.digest.hex, $0.hex) } } },
            uniquingKeysWith: { first, _ in first })
        try connection.query(
            """
            INSERT INTO blob (digest, format, width, height, bytes, source)
            SELECT * FROM unnest($1::text[], $2::text[], $3::integer[], $4::integer[], $5::bigint[], $6::text[])
            ON CONFLICT (digest) DO NOTHING
            """,
            [
                .textArray(images.map(\.digest.hex)), .textArray(images.map(\.format.rawValue)), .intArray(images.map(\.width)),
                .intArray(images.map(\.height)), .intArray(images.map(\.bytes)),
                .text("{" + images.map { sourceOf[$0.digest.hex].map { "\"\($0)\"" } ?? "NULL" }.joined(separator: ",") + "}"),
            ])
        guard !uploads.isEmpty else { return }
        let sources = uploads.keys.sorted()
        try connection.query(
            """
            INSERT INTO upload (source, options, digest) SELECT s, $2, d FROM unnest($1::text[], $3::text[]) AS t(s, d)
            ON CONFLICT (source, options) DO UPDATE SET digest = excluded.digest
            """, [.textArray(sources), .text(encodingKey), .textArray(sources.map { uploads[$0]! })])
    }

    /// Poster rows, their hashtags and search keys; returns the new ids, in order.
    static func insertPosterRows(_ posters: [NewPoster], createdAt: Timestamp, on connection: Connection) throws -> [Int64] {
        guard !posters.isEmpty else { return [] }
        // Ids drawn first (ascending, under the insert lock), so every later row can name them.
        let idRows = try connection.query(
            "SELECT nextval(pg_get_serial_sequence('poster', 'id')) FROM generate_series(1, $1)", [.integer(posters.count)])
        let ids = (0..<idRows.count).map { idRows.int64($0, 0) }.sorted()
        try connection.query(
            """
            INSERT INTO poster (id, contents, created_at, image1, image2)
            SELECT id, contents, $3, image1, image2 FROM unnest($1::bigint[], $2::bytea[], $4::text[], $5::text[])
                AS t(id, contents, image1, image2)
            """,
            [
                .intArray(ids), .textArray(posters.map { "\\x" + hex($0.contents.utf8) }), .int(createdAt.secondsSince1970),
                .textArray(posters.map(\.images[0].digest.hex)), .textArray(posters.map(\.images[1].digest.hex)),
            ])
        var tagIDs: [Int64] = []
        var positions: [Int] = []
        var tags: [String] = []
        for (id, poster) in zip(ids, posters) {
            for (position, tag) in poster.hashtags.enumerated() {
                tagIDs.append(id)
                positions.append(position)
                tags.append(tag)
            }
        }
        if !tags.isEmpty {
            try connection.query(
                "INSERT INTO hashtag (poster_id, position, tag) SELECT * FROM unnest($1::bigint[], $2::integer[], $3::text[])",
                [.intArray(tagIDs), .intArray(positions), .textArray(tags)])
        }
        try indexSearchKeys(ids: ids, posters: posters.map { ($0.contents, $0.hashtags) }, on: connection)
        return ids
    }

    /// Adds `times` votes to one side in one statement (atomic under any number of
    /// processes); nil when there is no such poster.
    public func vote(id: Int64, side: VoteSide, times: Int) throws -> Poster? {
        let column = side == .first ? "good1" : "good2"
        let poster = try pool.withConnection { connection -> Poster? in
            let updated = try connection.query("UPDATE poster SET \(column) = \(column) + $2 WHERE id = $1", [.int(id), .integer(times)])
            guard updated.changes == 1 else { return nil }
            return try Self.poster(id: id, on: connection)
        }
        if poster != nil { notifier.changed([id]) }
        return poster
    }

    /// Adds many posters' vote counts at once, in one transaction: one UPDATE per poster
    /// (`good1 = good1 + n`), rows locked in id order so two servers applying overlapping
    /// batches never deadlock. Returns the ids that exist (votes for the others are dropped).
    public func applyVotes(_ deltas: [(id: Int64, good1: Int, good2: Int)]) throws -> Set<Int64> {
        var merged: [Int64: (Int, Int)] = [:]
        for delta in deltas {
            let sum = merged[delta.id] ?? (0, 0)
            merged[delta.id] = (sum.0 + delta.good1, sum.1 + delta.good2)
        }
        let ids = merged.keys.sorted()
        guard !ids.isEmpty else { return [] }
        let existing = try pool.transaction { connection -> Set<Int64> in
            let locked = try connection.query(
                "SELECT id FROM poster WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE", [.intArray(ids)])
            try connection.query(
                """
                UPDATE poster p SET good1 = p.good1 + d.g1, good2 = p.good2 + d.g2
                FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS d(id, g1, g2) WHERE p.id = d.id
                """, [.intArray(ids), .intArray(ids.map { merged[$0]!.0 }), .intArray(ids.map { merged[$0]!.1 })])
            return Set((0..<locked.count).map { locked.int64($0, 0) })
        }
        notifier.changed(Array(existing))
        return existing
    }

    /// Deletes a poster and the blob rows only it used, holding those digests' locks; returns
    /// it and those digests.
    public func delete(id: Int64) throws -> (poster: Poster, orphaned: [Digest])? {
        let result = try pool.transaction { connection -> (poster: Poster, orphaned: [Digest])? in
            guard let poster = try Self.poster(id: id, on: connection) else { return nil }
            let digests = Set(poster.images.map(\.digest))
            try Self.lockBlobs(digests, on: connection)
            try connection.query("DELETE FROM poster WHERE id = $1", [.int(id)])
            let unused = try Self.unreferenced(digests, on: connection)
            try connection.query("DELETE FROM blob WHERE digest = ANY($1::text[])", [.textArray(unused.map(\.hex))])
            return (poster, unused.sorted())
        }
        if result != nil { notifier.changed([id]) }
        return result
    }

    /// Replaces a poster's contents and hashtags (and its search key); nil when there is no
    /// such poster.
    public func edit(id: Int64, contents: String, hashtags: [String]) throws -> Poster? {
        let tags = Hashtags.normalize(hashtags)
        let poster = try pool.transaction { connection -> Poster? in
            let updated = try connection.query("UPDATE poster SET contents = $2::bytea WHERE id = $1", [.int(id), .utf8(contents)])
            guard updated.changes == 1 else { return nil }
            try connection.query("DELETE FROM hashtag WHERE poster_id = $1", [.int(id)])
            if !tags.isEmpty {
                try connection.query(
                    "INSERT INTO hashtag (poster_id, position, tag) SELECT $1, p - 1, t FROM unnest($2::text[]) WITH ORDINALITY AS u(t, p)",
                    [.int(id), .textArray(tags)])
            }
            try connection.query("DELETE FROM search_key WHERE poster_id = $1", [.int(id)])
            try Self.indexSearchKeys(ids: [id], posters: [(contents, tags)], on: connection)
            return try Self.poster(id: id, on: connection)
        }
        if poster != nil { notifier.changed([id]) }
        return poster
    }

    // MARK: Blob references

    /// Runs `body` in a transaction holding the locks of `digests` (transaction-scoped
    /// advisory locks, one per digest, taken in sorted order), with the subset some poster
    /// still references. A post takes the same locks before it commits, so a file removed
    /// here for a digest nobody references cannot be one a poster is about to reference.
    public func withBlobLocks<T>(_ digests: Set<Digest>, _ body: (_ referenced: Set<Digest>) throws -> T) throws -> T {
        try pool.transaction { connection in
            try Self.lockBlobs(digests, on: connection)
            let unused = try Self.unreferenced(digests, on: connection)
            return try body(digests.subtracting(unused))
        }
    }

    /// Deletes blob rows that no poster references, each under its digest's lock; returns their digests.
    public func removeUnreferencedBlobRows() throws -> [Digest] {
        let candidates = try pool.withConnection { connection in
            let rows = try connection.query(
                """
                SELECT digest FROM blob b WHERE NOT EXISTS (SELECT 1 FROM poster WHERE image1 = b.digest)
                AND NOT EXISTS (SELECT 1 FROM poster WHERE image2 = b.digest)
                """)
            return Set((0..<rows.count).compactMap { Digest(hex: rows.text($0, 0)) })
        }
        guard !candidates.isEmpty else { return [] }
        return try pool.transaction { connection in
            try Self.lockBlobs(candidates, on: connection)
            let unused = try Self.unreferenced(candidates, on: connection)
            try connection.query("DELETE FROM blob WHERE digest = ANY($1::text[])", [.textArray(unused.map(\.hex))])
            return unused.sorted()
        }
    }

    /// Takes the transaction-scoped advisory lock of each digest, in sorted order (so two
    /// transactions locking overlapping sets cannot deadlock).
    static func lockBlobs(_ digests: Set<Digest>, on connection: Connection) throws {
        guard !digests.isEmpty else { return }
        try connection.query(
            "SELECT pg_advisory_xact_lock(k) FROM unnest($1::bigint[]) AS k ORDER BY k", [.intArray(digests.map(lockKey).sorted())])
    }

    /// A digest's advisory lock key: its first 64 bits. Two digests sharing a key only share
    /// a lock, which costs waiting, never correctness.
    static func lockKey(_ digest: Digest) -> Int64 {
        var value: UInt64 = 0
        for byte in digest.hex.utf8.prefix(16) {
            let nibble = byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : byte - UInt8(ascii: "a") + 10
            value = value << 4 | UInt64(nibble)
        }
        return Int64(bitPattern: value)
    }

    /// Which of `digests` no poster references.
    static func unreferenced(_ digests: Set<Digest>, on connection: Connection) throws -> Set<Digest> {
        guard !digests.isEmpty else { return [] }
        let rows = try connection.query(
            """
            SELECT d FROM unnest($1::text[]) AS d
            WHERE NOT EXISTS (SELECT 1 FROM poster WHERE image1 = d) AND NOT EXISTS (SELECT 1 FROM poster WHERE image2 = d)
            """, [.textArray(digests.map(\.hex))])
        return Set((0..<rows.count).compactMap { Digest(hex: rows.text($0, 0)) })
    }

    // MARK: Identity

    /// The lowest id of a poster with the same images, contents and hashtags (in order).
    public func matchingPoster(_ poster: NewPoster) throws -> Int64? {
        try pool.withConnection { try Self.matchingPoster(poster, on: $0) }
    }

    static func matchingPoster(_ poster: NewPoster, on connection: Connection) throws -> Int64? {
        let rows = try connection.query(
            """
            SELECT p.id, (SELECT array_agg(h.tag ORDER BY h.position) FROM hashtag h WHERE h.poster_id = p.id)
            FROM poster p WHERE p.image1 = $1 AND p.image2 = $2 AND md5(p.contents) = md5($3::bytea) AND p.contents = $3::bytea ORDER BY p.id
            """, [.text(poster.images[0].digest.hex), .text(poster.images[1].digest.hex), .utf8(poster.contents)])
        for row in 0..<rows.count {
            let tags = rows.isNull(row, 1) ? [] : ArrayLiteral.parse(rows.text(row, 1))
            if tags == poster.hashtags { return rows.int64(row, 0) }
        }
        return nil
    }
}

/// What makes two posters the same for import: both images, contents and hashtags.
struct PosterIdentity: Hashable {
    let images: [Digest]
    let contents: String
    let hashtags: [String]

    init(_ poster: NewPoster) {
        images = poster.images.map(\.digest)
        contents = poster.contents
        hashtags = poster.hashtags
    }
}

/// Lowercase hex of bytes.
func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0xF)])
    }
    return String(decoding: text, as: UTF8.self)
}
