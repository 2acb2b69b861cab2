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
    private func stageBlob(_ prepared: PreparedImage, writing: Bool) throws -> StoredUpload {
        guard writing, let encoded = prepared.encoded else { return try writeBlob(prepared, writing: false) }
        let staged = try blobs.stage(encoded.bytes)
        let stored = StoredImage(
            digest: staged.digest, format: encoded.format, width: encoded.width, height: encoded.height, bytes: encoded.bytes.count)
        return StoredUpload(prepared: prepared, stored: stored, staged: staged)
    }

    /// Commits a batch of imported posters in one transaction; each is inserted unless an
    /// identical one is stored (or comes earlier in the batch). `images` are the batch's
    /// distinct images: their staged blobs are published (made durable and named) first, so
    /// no committed row ever references a blob that a power loss could lose.
    func commitImport(_ posters: [NewPoster], images: [StoredUpload]) throws -> [PosterImportOutcome] {
        let staged = images.compactMap(\.staged)
        do {
            try blobs.publish(staged)
            return try store.importPosters(posters, createdAt: configuration.now(), encodingKey: codec.encoding.key) {
                for image in images { try restoreBlob(image) }
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
        try store.matchingPoster(poster)
    }
}
