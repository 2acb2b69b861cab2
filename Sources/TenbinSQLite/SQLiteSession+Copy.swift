import TenbinKit

/// Copying a whole board in and out of SQLite: posters in id order, blob rows in digest order,
/// and inserts that keep ids. `AUTOINCREMENT` keeps the highest id ever given in
/// `sqlite_sequence`, and an explicit id above it moves it up.
extension SQLiteSession {
    func posters(afterID: Int64, limit: Int) throws -> [Poster] {
        guard limit > 0 else { return [] }
        let statement = try db.statement(Self.posterColumns + " WHERE p.id > ? ORDER BY p.id LIMIT ?").bind(afterID, limit)
        return try withHashtags(try statement.map(Self.decodePoster))
    }

    func blobRecords(after: Digest?, limit: Int) throws -> [BlobRecord] {
        guard limit > 0 else { return [] }
        var hashes: [Digest: PerceptualHash] = [:]
        let images = try db.statement(
            "SELECT digest, format, width, height, bytes, phash FROM blob WHERE digest > ? ORDER BY digest LIMIT ?"
        ).bind(after?.hex ?? "", limit).map { row in
            let image = try Self.decodeImage(row, from: 0)
            if !row.isNull(5) { hashes[image.digest] = PerceptualHash(storedValue: row.int64(5)) }
            return image
        }
        guard let first = images.first, let last = images.last else { return [] }
        var uploads: [Digest: [UploadKey]] = [:]
        let statement = try db.statement(
            "SELECT b.digest, u.source, u.options FROM upload u JOIN blob b ON b.id = u.blob_id WHERE b.digest BETWEEN ? AND ? ORDER BY u.source, u.options"
        )
        try statement.bind(first.digest.hex, last.digest.hex)
        while try statement.step() {
            guard let digest = Digest(hex: statement.text(0)), let source = Digest(hex: statement.text(1)) else { continue }
            uploads[digest, default: []].append(UploadKey(source: source, encodingKey: statement.text(2)))
        }
        return images.map { BlobRecord(image: $0, uploads: uploads[$0.digest] ?? [], perceptualHash: hashes[$0.digest]) }
    }

    func lastPosterID() throws -> Int64 {
        try db.statement(
            "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'poster'), 0), coalesce((SELECT max(id) FROM poster), 0))"
        ).first { $0.int64(0) } ?? 0
    }

    func insertBlobs(_ records: [BlobRecord]) throws {
        for record in records {
            // The row's own `source` is the first upload's, as when it was first stored.
            try insertBlob(record.image, source: record.uploads.first?.source, encodingKey: record.uploads.first?.encodingKey ?? "")
            for upload in record.uploads.dropFirst() {
                try insertBlob(record.image, source: upload.source, encodingKey: upload.encodingKey)
            }
        }
        var hashes: [Digest: PerceptualHash] = [:]
        for record in records { hashes[record.image.digest] = record.perceptualHash }
        try setPerceptualHashes(hashes)
    }

    func insertPosters(_ records: [PosterRecord]) throws {
        for record in records {
            let poster = record.poster
            guard let image1 = try blobID(poster.images[0].digest), let image2 = try blobID(poster.images[1].digest) else {
                throw SQLiteError(code: 787, message: "a poster's image has no blob row")  // as insertPoster says it
            }
            try db.statement(
                """
                INSERT INTO poster (id, contents, contents_hash, good1, good2, created_at, image1, image2, alt1, alt2, trend)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
            ).bind(
                poster.id, poster.contents, ContentsHash.of(poster.contents), poster.good1, poster.good2, poster.createdAt.secondsSince1970,
                image1, image2, poster.alt1, poster.alt2, poster.trendingScore
            ).run()
            try insertHashtags(poster.hashtags, of: poster.id)
        }
        // One segment for the whole batch, as an import's.
        try indexSearch(ids: records.map(\.poster.id), search: records.map(\.search))
    }

    func reservePosterIDs(through id: Int64) throws {
        guard id > (try lastPosterID()) else { return }
        try db.statement("UPDATE sqlite_sequence SET seq = ? WHERE name = 'poster'").bind(id).run()
        if db.changes == 0 { try db.statement("INSERT INTO sqlite_sequence (name, seq) VALUES ('poster', ?)").bind(id).run() }
    }
}
