extension Board {
    /// Reads, recognises and (unless `writing` is off) stages one image of an import: its
    /// blob is written to a temporary file, made durable and named with the rest of its batch
    /// by `commitImport`. The same bytes met earlier in the import are taken from `memo`
    /// without decoding. A poster whose other image fails leaves only a temporary file, which
    /// the import removes at its end (or `gc`, after a kill).
    func prepareImport(_ path: String, writing: Bool, memo: ImageMemo) throws -> StoredUpload {
        let upload = ImageUpload.file(path)
        let bytes = try codec.readUpload(at: path)
        let source = Digest(of: bytes)
        if let (stored, staged) = memo.image(for: source), !writing || staged?.temporary != nil || blobs.contains(stored.digest) {
            return StoredUpload(
                prepared: PreparedImage(upload: upload, source: source, known: stored, encoded: nil), stored: stored, staged: staged)
        }
        let ready = try stageBlob(try prepare(bytes, source: source, upload: upload), writing: writing)
        memo.remember(ready.stored, staged: ready.staged, for: source)
        return ready
    }

    /// Stages a prepared image's blob unless it is already stored; without `writing` (a dry
    /// run) only its digest is computed.
    func stageBlob(_ prepared: PreparedImage, writing: Bool) throws -> StoredUpload {
        guard writing, let encoded = prepared.encoded else { return try writeBlob(prepared, writing: false) }
        let staged = try blobs.stage(encoded.bytes)
        let stored = StoredImage(
            digest: staged.digest, format: encoded.format, width: encoded.width, height: encoded.height, bytes: encoded.bytes.count)
        return StoredUpload(prepared: prepared, stored: stored, staged: staged)
    }

    /// Commits a batch of imported posters in one transaction; each is inserted unless an
    /// identical one is stored (or comes earlier in the batch). `images` are the batch's
    /// distinct images: their staged blobs are published (made durable and named) first, so
    /// no committed row ever references a blob that a power loss could lose. `records` are
    /// the posters' search records when the caller computed them already (an import does, on
    /// its reading thread, while the previous batch commits).
    func commitImport(_ posters: [NewPoster], records: [SearchRecord]? = nil, images: [StoredUpload]) throws -> [PosterImportOutcome] {
        let staged = images.compactMap(\.staged)
        do {
            try blobs.publish(staged)
            let key = codec.encoding.key
            let createdAt = configuration.now()
            // Computed outside the transaction: the write lock is held only for the writes.
            let records = records ?? posters.map { SearchRecord(contents: $0.contents, hashtags: $0.hashtags) }
            return try store.write { writing in
                try writing.lockBlobs(Array(Set(images.map(\.stored.digest))))
                for image in images { try restoreBlob(image) }
                // A batch of a manifest typically reuses a few images many times: write each blob
                // and upload row once, not once per poster.
                var blobsWritten: Set<Digest> = []
                var uploadsWritten: Set<Digest> = []
                for poster in posters {
                    for (image, source) in zip(poster.images, poster.sources) {
                        let newBlob = blobsWritten.insert(image.digest).inserted
                        let newUpload = source.map { uploadsWritten.insert($0).inserted } ?? false
                        guard newBlob || newUpload else { continue }
                        try writing.insertBlob(image, source: source, encodingKey: key)
                    }
                }
                // Looked up and inserted in one transaction: two imports of the same poster
                // running at once cannot both add it, and a poster identical to one earlier in
                // the batch finds that one.
                return try zip(posters, records).map { poster, record in
                    if let id = try Self.matchingPoster(poster, in: writing) { return .existing(id) }
                    return .inserted(try writing.insertPoster(poster, createdAt: createdAt, search: record))
                }
            }
        } catch {
            // The import stops here: what was not renamed into place is of no further use.
            blobs.discard(staged)
            throw error
        }
    }

    /// Removes the temporary files of staged blobs no batch published.
    func discardStaged(_ staged: [StagedBlob]) {
        blobs.discard(staged)
    }

    /// The id of a stored poster identical to `poster` (for dry runs).
    func matchingPoster(_ poster: NewPoster) throws -> Int64? {
        try store.read { try Self.matchingPoster(poster, in: $0) }
    }

    /// The lowest id of a poster with the same two images, contents and hashtags (in order).
    static func matchingPoster(_ poster: NewPoster, in reading: any StoreReading) throws -> Int64? {
        let candidates = try reading.posterIDs(image1: poster.images[0].digest, image2: poster.images[1].digest, contents: poster.contents)
        guard !candidates.isEmpty else { return nil }
        return try reading.posters(ids: candidates).first { $0.hashtags == poster.hashtags }?.id
    }
}

/// What importing one poster did.
public enum PosterImportOutcome: Sendable, Hashable {
    /// The poster was added with this id.
    case inserted(Int64)
    /// An identical poster (same two images, contents and hashtags) already had this id.
    case existing(Int64)
}
