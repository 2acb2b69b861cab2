/// The image blocklist and the scanning hook: what keeps a removed picture from coming back
/// and lets an operator's program refuse a post before it commits.
///
/// Every image a post or an import stores gets its perceptual hash stored with its blob row.
/// Pictures stored before schema 12 (SQLite) or version 9 (PostgreSQL) have none until they
/// are needed: a post that uses one again, or a moderator blocking it, decodes the blob and
/// stores the hash then (lazily; there is no maintenance step to run).
extension Board {
    /// Puts both images of a poster on the blocklist (each by its stored digest and perceptual
    /// hash, noted "poster #ID, image N"), so that no later post brings them back, even
    /// re-encoded, resized or mildly cropped. The poster itself is left as it is (a moderator's
    /// `remove --block-images` blocks and deletes in one transaction). An image already on the
    /// list keeps its entry. Returns the two entries.
    @discardableResult
    public func blockImages(ofPoster id: Int64) throws -> [BlockedImage] {
        let images = try imagesToBlock(ofPoster: id)
        let createdAt = configuration.now()
        return try store.write { try Self.writeBlocks(images, ofPoster: id, $0, createdAt: createdAt) }
    }

    /// A poster's images (hidden or not) with their perceptual hashes, decoded now for a
    /// picture stored before hashes were: what blocking them writes, found before the write.
    func imagesToBlock(ofPoster id: Int64) throws -> [(image: StoredImage, hash: PerceptualHash?)] {
        try moderationItem(id: id).poster.images.map { ($0, try storedHash(of: $0.digest)) }
    }

    /// Writes blocklist entries for a poster's images (and their hashes to their blob rows),
    /// inside the caller's transaction.
    static func writeBlocks(
        _ images: [(image: StoredImage, hash: PerceptualHash?)], ofPoster id: Int64, _ writing: any StoreWriting, createdAt: Timestamp
    ) throws -> [BlockedImage] {
        var known: [Digest: PerceptualHash] = [:]
        for (image, hash) in images { known[image.digest] = hash }
        try writing.setPerceptualHashes(known)
        return try images.enumerated().map { side, pair in
            try writing.insertBlockedImage(
                NewBlockedImage(digest: pair.image.digest, perceptualHash: pair.hash, note: "poster #\(id), image \(side + 1)"),
                createdAt: createdAt)
        }
    }

    /// Puts the pictures in files on the blocklist: each by the SHA-256 of the file's bytes and
    /// the perceptual hash of its pixels, noted `note` (the file's name when nil). Every file
    /// must be an image tenbin reads, within the board's limits; all are read and decoded
    /// before any entry is written, and the entries are written in one transaction, so a bad
    /// file lists none of them.
    @discardableResult
    public func blockImages(files paths: [String], note: String? = nil) throws -> [BlockedImage] {
        let entries = try paths.map { path in
            let bytes = try codec.readUpload(at: path)
            let hash = try codec.perceptualHash(bytes, source: path)
            return NewBlockedImage(digest: Digest(of: bytes), perceptualHash: hash, note: note ?? Self.fileName(path))
        }
        let createdAt = configuration.now()
        return try store.write { writing in try entries.map { try writing.insertBlockedImage($0, createdAt: createdAt) } }
    }

    /// Every entry of the image blocklist, oldest first.
    public func blockedImages() throws -> [BlockedImage] {
        try store.readSingle { try $0.blockedImages() }
    }

    /// Takes an entry off the blocklist and returns it.
    @discardableResult
    public func unblockImage(id: Int64) throws -> BlockedImage {
        let removed = try store.write { writing -> BlockedImage? in
            guard let entry = try writing.blockedImages().first(where: { $0.id == id }), try writing.deleteBlockedImage(id: id) else {
                return nil
            }
            return entry
        }
        guard let removed else { throw ModerationError.noSuchBlockedImage(id) }
        return removed
    }

    /// The perceptual hash stored with a blob, or, for a picture stored before hashes were,
    /// the hash of its decoded blob (which the caller stores).
    func storedHash(of digest: Digest) throws -> PerceptualHash? {
        if let stored = try store.readSingle({ try $0.perceptualHashes([digest]) })[digest] { return stored }
        return try codec.perceptualHash(try blobs.read(digest), source: digest.hex)
    }

    /// The hashes of prepared images, by the digest they are stored under.
    static func hashes(of images: [StoredUpload]) -> [Digest: PerceptualHash] {
        var hashes: [Digest: PerceptualHash] = [:]
        for image in images { hashes[image.stored.digest] = image.prepared.hash }
        return hashes
    }

    /// Throws ``ImageRefusal/blocked(image:entry:)`` for the first of `images` the blocklist
    /// holds, by the digest of its upload or of its stored bytes, or by its perceptual hash.
    /// Reads nothing more than the list when it is empty.
    func refuseBlocked(_ images: [PreparedImage]) throws {
        let entries = try store.readSingle { try $0.blockedImages() }
        guard !entries.isEmpty else { return }
        let blocklist = ImageBlocklist(entries, distance: configuration.blockDistance)
        for image in images {
            let stored = image.known?.digest ?? image.encoded.map { Digest(of: $0.bytes) }
            let digests = [image.source] + (stored.map { [$0] } ?? [])
            if let entry = blocklist.match(digests: digests, hash: image.hash) {
                throw ImageRefusal.blocked(image: image.upload.label, entry: entry.id)
            }
        }
    }

    /// Hands the images, as they will be stored, to the configured scanner (when there is
    /// one); returns when it accepts them.
    func scan(_ images: [PreparedImage]) throws {
        guard let scanner = configuration.scanner else { return }
        let files = try images.map { image in
            if let encoded = image.encoded { return ImageScanner.Image(bytes: encoded.bytes, format: encoded.format) }
            // A prepared image has either `encoded` or `known`.
            let known = image.known!
            return ImageScanner.Image(bytes: try blobs.read(known.digest), format: known.format)
        }
        try scanner.scan(files)
    }

    private static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
