/// What importing one poster did.
public enum PosterImportOutcome: Sendable, Hashable {
    /// The poster was added with this id.
    case inserted(Int64)
    /// An identical poster (same two images, contents and hashtags) already had this id.
    case existing(Int64)
}

extension PosterStore {
    /// The page cache an importing connection may grow to, in KiB (64 MiB).
    static let importCacheKiB = 65536

    public func importPosters(_ posters: [NewPoster], createdAt: Timestamp, encodingKey: String, beforeCommit: () throws -> Void) throws
        -> [PosterImportOutcome]
    {
        try withDatabase { db in
            // Each poster touches a few random pages of the indexes; a larger page cache than
            // SQLite's 2 MB default keeps a big import from re-reading them for every batch.
            // The cache grows only as pages are used.
            try db.execute("PRAGMA cache_size = -\(Self.importCacheKiB)")
            // BEGIN IMMEDIATE: the lookups and the inserts see one state of the store, so two
            // imports of the same poster running at once cannot both add it.
            return try db.transaction {
                // A batch of a manifest typically reuses a few images many times: write each
                // blob and upload row once, not once per poster.
                var blobs: Set<Digest> = []
                var uploads: Set<Digest> = []
                for poster in posters {
                    for (image, source) in zip(poster.images, poster.sources) {
                        let newBlob = blobs.insert(image.digest).inserted
                        let newUpload = source.map { uploads.insert($0).inserted } ?? false
                        guard newBlob || newUpload else { continue }
                        try Self.insertImageRow(image, source: source, encodingKey: encodingKey, in: db)
                    }
                }
                var outcomes: [PosterImportOutcome] = []
                outcomes.reserveCapacity(posters.count)
                for poster in posters {
                    if let id = try Self.matchingPoster(poster, in: db) {
                        outcomes.append(.existing(id))
                    } else {
                        outcomes.append(.inserted(try Self.insertPosterRows(poster, createdAt: createdAt, in: db).id))
                    }
                }
                try beforeCommit()
                return outcomes
            }
        }
    }

    public func matchingPoster(_ poster: NewPoster) throws -> Int64? {
        try withDatabase { db in try Self.matchingPoster(poster, in: db) }
    }

    /// The lowest id of a poster with the same images, contents and hashtags (in order), found
    /// through the `poster_identity` index.
    static func matchingPoster(_ poster: NewPoster, in db: Database) throws -> Int64? {
        let candidates = try db.statement("SELECT id FROM poster WHERE image1 = ? AND image2 = ? AND contents = ? ORDER BY id")
            .bind(poster.images[0].digest.hex, poster.images[1].digest.hex, poster.contents).map { $0.int64(0) }
        for id in candidates {
            let tags = try db.statement("SELECT tag FROM hashtag WHERE poster_id = ? ORDER BY position").bind(id).map { $0.text(0) }
            if tags == poster.hashtags { return id }
        }
        return nil
    }
}
