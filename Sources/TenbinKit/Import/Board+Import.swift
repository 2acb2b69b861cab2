extension Board {
    /// Reads, recognises and (unless `writing` is off) stores one image of an import.
    /// The same bytes met earlier in the import are taken from `memo` without decoding.
    func prepareImport(_ path: String, writing: Bool, memo: ImageMemo) throws -> PreparedImage {
        let upload = ImageUpload.file(path)
        let bytes = try codec.readUpload(at: path)
        let source = Digest(of: bytes)
        if let stored = memo.image(for: source), !writing || blobs.contains(stored.digest) {
            return PreparedImage(stored: stored, source: source, upload: upload)
        }
        let prepared = try prepare(bytes, source: source, upload: upload, writing: writing)
        memo.remember(prepared.stored, for: source)
        return prepared
    }

    /// Commits a batch of imported posters in one transaction; each is inserted unless an
    /// identical one is stored (or comes earlier in the batch). `images` are the batch's
    /// distinct images.
    func commitImport(_ posters: [NewPoster], images: [PreparedImage]) throws -> [PosterImportOutcome] {
        try store.importPosters(posters, createdAt: configuration.now(), encodingKey: codec.encoding.key) {
            // Holding the write lock, as `commit` does: `gc` may have removed a file between
            // its write and now. Put it back before the rows point at it.
            for image in images where !blobs.contains(image.stored.digest) {
                let again = try self.store(try image.upload.bytes(codec), label: image.upload.label)
                guard again.digest == image.stored.digest else {
                    throw ImportError(path: image.upload.label, reason: "changed while it was being imported; run the import again")
                }
            }
        }
    }

    /// The id of a stored poster identical to `poster` (for dry runs).
    func matchingPoster(_ poster: NewPoster) throws -> Int64? {
        try store.matchingPoster(poster)
    }
}
