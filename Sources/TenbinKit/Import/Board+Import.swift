extension Board {
    /// Reads, recognises and (unless `writing` is off) stores one image of an import.
    /// The same bytes met earlier in the import are taken from `memo` without decoding.
    /// Unlike `post`, each image's blob is written as soon as it is ready: a poster whose
    /// other image then fails leaves only a whole, unreferenced file that `gc` removes.
    func prepareImport(_ path: String, writing: Bool, memo: ImageMemo) throws -> StoredUpload {
        let upload = ImageUpload.file(path)
        let bytes = try codec.readUpload(at: path)
        let source = Digest(of: bytes)
        if let stored = memo.image(for: source), !writing || blobs.contains(stored.digest) {
            return StoredUpload(prepared: PreparedImage(upload: upload, source: source, known: stored, encoded: nil), stored: stored)
        }
        let ready = try writeBlob(try prepare(bytes, source: source, upload: upload), writing: writing)
        memo.remember(ready.stored, for: source)
        return ready
    }

    /// Commits a batch of imported posters in one transaction; each is inserted unless an
    /// identical one is stored (or comes earlier in the batch). `images` are the batch's
    /// distinct images.
    func commitImport(_ posters: [NewPoster], images: [StoredUpload]) throws -> [PosterImportOutcome] {
        try store.importPosters(posters, createdAt: configuration.now(), encodingKey: codec.encoding.key) {
            for image in images { try restoreBlob(image) }
        }
    }

    /// The id of a stored poster identical to `poster` (for dry runs).
    func matchingPoster(_ poster: NewPoster) throws -> Int64? {
        try store.matchingPoster(poster)
    }
}
