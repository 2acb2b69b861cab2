import Dispatch

/// The one service every front end talks to, and the only write path into a store.
///
/// A board is a store backend (where posters, votes and blob rows live) and a blob store
/// (where images live). Library code never prints or exits; every method returns a value or
/// throws an error that names what it is about, with a ``ErrorKind``.
public final class Board: Sendable {
    /// Everything a board is built from; tests swap the parts.
    public struct Configuration: Sendable {
        /// Limits checked on every upload.
        public var limits: ImageLimits
        /// How uploads are stored.
        public var encoding: EncodingOptions
        /// The clock posters are dated by.
        public var now: @Sendable () -> Timestamp
        /// How live feeds wait for changes (see ``LiveFeeds``).
        public var live: LiveFeeds.Options
        /// How votes cast with ``castVote(id:side:times:)`` are grouped into one commit.
        public var voteBatching: VoteBatcher.Options
        /// How many distinct reporters hide a poster (see ``Board/report(id:reason:note:reporter:)``).
        public var reportThreshold: Int
        /// The largest Hamming distance between perceptual hashes at which a posted image
        /// counts as a blocked one (see ``BlockedImage``).
        public var blockDistance: Int = ImageBlocklist.defaultDistance
        /// The operator's program every post's images are handed to before it commits; nil
        /// for none.
        public var scanner: ImageScanner? = nil

        /// A configuration with tenbin's defaults.
        public init(
            limits: ImageLimits = ImageLimits(), encoding: EncodingOptions = EncodingOptions(),
            now: @escaping @Sendable () -> Timestamp = Timestamp.now, live: LiveFeeds.Options = LiveFeeds.Options(),
            voteBatching: VoteBatcher.Options = VoteBatcher.Options(), reportThreshold: Int = Board.defaultReportThreshold
        ) {
            self.limits = limits
            self.encoding = encoding
            self.now = now
            self.live = live
            self.voteBatching = voteBatching
            self.reportThreshold = reportThreshold
        }
    }

    /// What this board was opened with.
    public let configuration: Configuration
    /// Where posters, votes and blob rows live.
    package let store: any StoreBackend
    let blobs: any BlobStoring
    /// The upload pipeline this board re-encodes with.
    package let codec: ImageCodec
    /// The one live-feed source every observer of this board shares.
    package let live: LiveFeeds
    /// Groups concurrent votes into one commit.
    let votes: VoteBatcher

    /// The folder that holds this board's blob folder (a store folder: `FOLDER/blobs`), where
    /// front ends may keep files derived from the board beside it, shared by every server on
    /// the same files; nil for blobs kept elsewhere.
    package var derivedFilesFolder: String? {
        guard let root = (blobs as? BlobStore)?.root, root.hasSuffix("/blobs") else { return nil }
        return String(root.dropLast("/blobs".count))
    }

    /// Votes committed through ``castVote(id:side:times:)`` and the transactions they took.
    package var voteStatistics: (votes: Int, commits: Int) { votes.statistics }

    /// A board over the given parts.
    public init(_ configuration: Configuration, store: any StoreBackend, blobs: any BlobStoring) {
        self.configuration = configuration
        self.store = store
        self.blobs = blobs
        self.codec = ImageCodec(limits: configuration.limits, encoding: configuration.encoding)
        self.live = LiveFeeds(store: store, options: configuration.live)
        self.votes = VoteBatcher(store: store, options: configuration.voteBatching, now: configuration.now)
    }

    // MARK: Reading

    /// One poster.
    /// One poster the public may see: a hidden poster is no such poster here.
    public func poster(id: Int64) throws -> Poster {
        guard let poster = try store.readSingle({ try $0.posters(ids: [id]) }).first, try !isHidden(id: id) else {
            throw BoardError.noSuchPoster(id)
        }
        return poster
    }

    /// The highest poster id ever given, deleted posters' included (ids are never reused, so a
    /// missing poster at or below it was deleted); 0 when none was.
    public func lastPosterID() throws -> Int64 {
        try store.readSingle { try $0.lastPosterID() }
    }

    /// A page of a feed, skipping `offset` posters.
    public func posters(order: FeedOrder = .new, limit: Int = 20, offset: Int = 0) throws -> [Poster] {
        guard limit > 0 else { return [] }
        return try pageOfAll(order: order, after: nil, offset: max(0, offset), limit: limit)
    }

    /// A page of every poster the public may see, in `order`.
    func pageOfAll(order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int) throws -> [Poster] {
        try Self.pageOfAll(order: order, after: after, offset: offset, limit: limit, in: store)
    }

    /// ``pageOfAll(order:after:offset:limit:)`` on `store`: also how a live feed is read (``LiveFeeds``).
    static func pageOfAll(order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int, in store: any StoreBackend) throws -> [Poster] {
        if limit > 0, let page = try store.visiblePage(order: order, after: after, offset: offset, limit: limit) { return page }
        return try visiblePage(order: order, after: after, offset: offset, limit: limit, in: store) { after, offset, limit in
            try store.readSingle { try $0.page(order: order, after: after, offset: offset, limit: limit) }
        }
    }

    /// A page of a feed that continues after `cursor` (the first page without one), read from
    /// one snapshot. Unlike an offset, a cursor does not shift when posters arrive while
    /// someone scrolls, and a walk from the first page to the last visits every poster that
    /// existed when it began and was not deleted meanwhile exactly once, however votes move
    /// them meanwhile: popular and trending order rank by the votes as of the walk's first page
    /// (``VoteSnapshot``).
    public func page(order: FeedOrder = .new, limit: Int = 20, after cursor: PageCursor? = nil) throws -> Page {
        let position = try cursor?.position(for: order, query: nil)
        guard limit > 0 else { return Page(posters: [], next: nil) }
        guard order.movesWithVotes else {
            let posters = try pageOfAll(order: order, after: position, offset: 0, limit: limit)
            return Page(posters: posters, next: PageCursor.after(posters, order: order, limit: limit, query: nil, snapshot: nil))
        }
        let (posters, snapshot) = try walk(order, cursor: cursor, after: position, limit: limit) { mark, after, limit in
            try store.read { reading in
                let snapshot = try Self.voteSnapshot(order: order, mark: mark, cursor: cursor, in: reading)
                return (try snapshot.page(after: after, limit: limit, in: reading), snapshot)
            }
        }
        return Page(posters: posters, next: PageCursor.after(posters, order: order, limit: limit, query: nil, snapshot: snapshot))
    }

    /// A page of the posters whose contents or hashtags contain every word of `query`,
    /// ignoring width, Latin case and hiragana/katakana (see ``SearchQuery``). A query with no
    /// words finds nothing.
    public func search(query: String, order: FeedOrder = .new, limit: Int = 20, offset: Int = 0) throws -> [Poster] {
        let parsed = SearchQuery(query)
        guard !parsed.isEmpty, limit > 0 else { return [] }
        return try searchPosters(parsed, order: order, after: nil, offset: max(0, offset), limit: limit)
    }

    /// ``search(query:order:limit:offset:)`` continuing after `cursor`, from one snapshot.
    public func searchPage(query: String, order: FeedOrder = .new, limit: Int = 20, after cursor: PageCursor? = nil) throws -> Page {
        let parsed = SearchQuery(query)
        let position = try cursor?.position(for: order, query: parsed)
        guard !parsed.isEmpty, limit > 0 else { return Page(posters: [], next: nil) }
        guard order.movesWithVotes else {
            let posters = try searchPosters(parsed, order: order, after: position, offset: 0, limit: limit)
            return Page(posters: posters, next: PageCursor.after(posters, order: order, limit: limit, query: parsed, snapshot: nil))
        }
        let (posters, snapshot) = try walk(order, cursor: cursor, after: position, limit: limit) { mark, after, limit in
            try searchWalk(parsed, order: order, after: after, mark: mark, cursor: cursor, limit: limit)
        }
        return Page(posters: posters, next: PageCursor.after(posters, order: order, limit: limit, query: parsed, snapshot: snapshot))
    }

    /// The stored bytes of one of a poster's images.
    public func imageBytes(id: Int64, side: VoteSide) throws -> (image: StoredImage, bytes: [UInt8]) {
        let image = try poster(id: id).images[side.rawValue - 1]
        return (image, try blobs.read(image.digest))
    }

    /// A stored image by its digest, with the path of its file (for a server to send as is).
    public func blob(_ digest: Digest) throws -> (image: StoredImage, path: String) {
        guard let image = try store.readSingle({ try $0.storedImage(digest: digest) }), blobs.contains(digest) else {
            throw BoardError.noSuchBlob(digest)
        }
        return (image, blobs.path(for: digest))
    }

    /// The bytes of a stored image by its digest.
    public func blobBytes(_ digest: Digest) throws -> [UInt8] {
        guard try store.readSingle({ try $0.storedImage(digest: digest) }) != nil else { throw BoardError.noSuchBlob(digest) }
        return try blobs.read(digest)
    }

    /// How many posters the board has.
    public func count() throws -> Int { try store.readSingle { try $0.count() } }

    // MARK: Writing

    /// Adds `times` votes to one side of a poster, in one transaction of its own.
    @discardableResult
    public func vote(id: Int64, side: VoteSide, times: Int = 1) throws -> Poster {
        try VoteBatcher.validate(times)
        let delta = VoteDelta(id: id, good1: side == .first ? times : 0, good2: side == .second ? times : 0)
        let poster = try store.commitVotes([delta], at: configuration.now()).first
        guard let poster else { throw BoardError.noSuchPoster(id) }
        return poster
    }

    /// Adds `times` votes to one side of a poster, committed together with the other votes
    /// cast within a few milliseconds (group commit). Returns once the vote is committed, with
    /// the poster as that commit left it.
    @discardableResult
    public func castVote(id: Int64, side: VoteSide, times: Int = 1) async throws -> Poster {
        try VoteBatcher.validate(times)
        return try await votes.cast(id: id, side: side, times: times)
    }

    /// ``castVote(id:side:times:)`` for callers that are not async (a server's I/O threads):
    /// throws at once for a count out of range, else queues the vote and returns; `completion`
    /// runs exactly once, on the vote batcher's thread, when the vote's batch has committed
    /// (with the poster as that commit left it) or failed. It must not block: the next batch
    /// waits for it.
    public func castVote(
        id: Int64, side: VoteSide, times: Int = 1, completion: @escaping @Sendable (Result<Poster, any Error>) -> Void
    ) throws(BoardError) {
        try VoteBatcher.validate(times)
        votes.cast(id: id, side: side, times: times, completion: completion)
    }

    /// Validates and re-encodes both images in memory, and only when both are good writes
    /// their blobs, then commits the poster and its blob rows in one transaction. A bad
    /// image leaves nothing behind; a failure after the blobs are written leaves only whole,
    /// unreferenced files that `gc` removes. Text over ``PosterTextLimits`` is refused first.
    /// Before anything is written, an image on the blocklist refuses the post
    /// (``ImageRefusal/blocked(image:entry:)``), and so does the configured
    /// ``ImageScanner`` when it says no or fails.
    public func post(_ draft: PosterDraft) throws -> Poster {
        try PosterTextLimits.check(contents: draft.contents, hashtags: draft.hashtags)
        try PosterTextLimits.check(alt1: draft.alt1, alt2: draft.alt2)
        let uploads = draft.images
        let slots = Locked([Result<PreparedImage, any Error>?](repeating: nil, count: uploads.count))
        // The two images are independent: prepare them on both cores at once.
        DispatchQueue.concurrentPerform(iterations: uploads.count) { index in
            let result = Result { try self.prepare(uploads[index]) }
            slots.withLock { $0[index] = result }
        }
        // concurrentPerform returns after every iteration has stored its result.
        let images = try slots.withLock { $0 }.map { try $0!.get() }
        try refuseBlocked(images)
        try scan(images)
        return try commit(draft, try storeBlobs(images))
    }

    /// Writes the blobs of a post's images the way an import writes a batch's: both files are
    /// flushed at once on the blob store's flusher, then named and their folders flushed.
    func storeBlobs(_ images: [PreparedImage]) throws -> [StoredUpload] {
        var stored: [StoredUpload] = []
        do {
            for image in images { stored.append(try stageBlob(image, writing: true)) }
            try blobs.publish(stored.compactMap(\.staged))
            return stored
        } catch {
            blobs.discard(stored.compactMap(\.staged))
            throw error
        }
    }

    /// An upload checked and ready to store: either re-encoded in memory, or recognised as
    /// an upload already stored under the same encoding options.
    struct PreparedImage: Sendable {
        let upload: ImageUpload
        /// The SHA-256 of the uploaded bytes.
        let source: Digest
        /// Set when the upload was seen before and its blob exists.
        let known: StoredImage?
        /// Set when the upload was re-encoded here.
        let encoded: EncodedImage?
        /// The picture's perceptual hash (nil for one too plain to hash).
        var hash: PerceptualHash? = nil
    }

    /// An image whose blob is on disk, ready to be referenced by a poster row (once published,
    /// when staged).
    struct StoredUpload: Sendable {
        let prepared: PreparedImage
        let stored: StoredImage
        /// Set when the blob was staged (import): it must be published before a row references it.
        var staged: StagedBlob? = nil
    }

    /// Reads and checks one upload, re-encoding it in memory; an upload seen before under
    /// the same encoding options is not decoded again. Writes nothing.
    func prepare(_ upload: ImageUpload) throws -> PreparedImage {
        let bytes = try upload.bytes(codec)
        return try prepare(bytes, source: Digest(of: bytes), upload: upload)
    }

    /// `prepare` for bytes already read and hashed.
    func prepare(_ bytes: [UInt8], source: Digest, upload: ImageUpload) throws -> PreparedImage {
        let key = codec.encoding.key
        if let known = try store.readSingle({ try $0.storedImage(source: source, encodingKey: key) }), blobs.contains(known.digest) {
            // Hashed from the upload in hand when its row has no hash (stored before hashes
            // were, or too plain): its blob file may be removed meanwhile by a delete that
            // `commit` then restores, so it is not read here.
            let stored = try store.readSingle { try $0.perceptualHashes([known.digest]) }[known.digest]
            let hash = try stored ?? codec.perceptualHash(bytes, source: upload.label)
            return PreparedImage(upload: upload, source: source, known: known, encoded: nil, hash: hash)
        }
        let (encoded, hash) = try codec.reencode(bytes, source: upload.label, hashing: true)
        return PreparedImage(upload: upload, source: source, known: nil, encoded: encoded, hash: hash)
    }

    /// Writes a prepared image's blob (whole, or not at all) unless it is already stored.
    /// Without `writing` (a dry run) nothing is written and the digest is only computed.
    func writeBlob(_ prepared: PreparedImage, writing: Bool = true) throws -> StoredUpload {
        if let known = prepared.known { return StoredUpload(prepared: prepared, stored: known) }
        // A prepared image has either `known` or `encoded`.
        let encoded = prepared.encoded!
        let digest = writing ? try blobs.write(encoded.bytes) : Digest(of: encoded.bytes)
        let stored = StoredImage(
            digest: digest, format: encoded.format, width: encoded.width, height: encoded.height, bytes: encoded.bytes.count)
        return StoredUpload(prepared: prepared, stored: stored)
    }

    func commit(_ draft: PosterDraft, _ images: [StoredUpload]) throws -> Poster {
        let poster = NewPoster(
            contents: draft.contents, hashtags: draft.hashtags, images: images.map(\.stored), sources: images.map(\.prepared.source),
            alt1: draft.alt1, alt2: draft.alt2)
        let search = SearchRecord(contents: poster.contents, hashtags: poster.hashtags)
        let key = codec.encoding.key
        let createdAt = configuration.now()
        let id = try store.write { writing in
            try writing.lockBlobs(images.map(\.stored.digest))
            for image in images { try restoreBlob(image) }
            for (image, source) in zip(poster.images, poster.sources) {
                try writing.insertBlob(image, source: source, encodingKey: key)
            }
            try writing.setPerceptualHashes(Self.hashes(of: images))
            return try writing.insertPoster(poster, createdAt: createdAt, search: search)
        }
        return Poster(
            id: id, contents: poster.contents, hashtags: poster.hashtags, good1: 0, good2: 0, createdAt: createdAt,
            images: poster.images, alt1: poster.alt1, alt2: poster.alt2)
    }

    /// Called holding the lock on an image's blob before a commit: `gc` (which deletes a file
    /// only holding that lock) may have removed the image's file since it was written or
    /// found. Puts it back, re-encoding the upload when its bytes are no longer in memory.
    func restoreBlob(_ image: StoredUpload) throws {
        guard !blobs.contains(image.stored.digest) else { return }
        let upload = image.prepared.upload
        let bytes = try image.prepared.encoded?.bytes ?? codec.reencode(try upload.bytes(codec), source: upload.label).bytes
        guard try blobs.write(bytes) == image.stored.digest else {
            throw ImageError(source: upload.label, stage: .read, reason: "changed while it was being stored; try again")
        }
    }

    /// Changes a poster's question and hashtags, keeping its id, images and votes; what is
    /// nil stays as it is. Its search record changes in the same transaction, and live feeds
    /// report the poster as modified. New text over ``PosterTextLimits`` is refused; text
    /// kept as it is is not checked (a poster stored over the limits by an older version can
    /// still have its other field edited).
    @discardableResult
    public func edit(id: Int64, contents: String? = nil, hashtags: [String]? = nil) throws -> Poster {
        if let contents { try PosterTextLimits.check(contents: contents) }
        if let hashtags { try PosterTextLimits.check(hashtags: hashtags) }
        let poster = try store.write { writing -> Poster? in
            guard let current = try writing.posters(ids: [id]).first else { return nil }
            let text = contents ?? current.contents
            let tags = hashtags.map(Hashtags.normalize) ?? current.hashtags
            let search = SearchRecord(contents: text, hashtags: tags)
            guard try writing.updateText(id: id, contents: text, hashtags: tags, search: search) else { return nil }
            return try writing.posters(ids: [id]).first
        }
        guard let poster else { throw BoardError.noSuchPoster(id) }
        return poster
    }

    /// Deletes a poster, and the blobs no other poster uses.
    @discardableResult
    public func delete(id: Int64) throws -> Poster {
        try delete(id: id) { _, _ in }
    }

    /// ``delete(id:)``, running `alongside` in the same transaction once the poster's rows are
    /// deleted (a removal writes its audit entry there).
    func delete(id: Int64, alongside: (any StoreWriting, Poster) throws -> Void) throws -> Poster {
        let deleted = try store.write { writing -> (Poster, [Digest])? in
            guard let poster = try writing.posters(ids: [id]).first, try writing.deletePoster(id: id) else { return nil }
            var orphaned: [Digest] = []
            for digest in Set(poster.images.map(\.digest)).sorted() where try writing.posterIDs(using: digest).isEmpty {
                try writing.deleteBlobRow(digest)
                orphaned.append(digest)
            }
            try alongside(writing, poster)
            return (poster, orphaned)
        }
        guard let (poster, orphaned) = deleted else { throw BoardError.noSuchPoster(id) }
        try removeBlobFiles(orphaned)
        // Its preview cards show its pictures: they go with it (a file that cannot be removed
        // now is removed by gc).
        previewCardFolder?.remove(poster: id)
        return poster
    }

    /// Removes the files of those of `digests` that have no blob row, each while holding its
    /// blob's lock, so a post that brings a digest back (and restores its file) never loses it.
    func removeBlobFiles(_ digests: [Digest]) throws {
        guard !digests.isEmpty else { return }
        try store.write { writing in
            try writing.lockBlobs(digests)
            let present = try writing.blobRowsPresent(digests)
            for digest in digests where !present.contains(digest) { try blobs.remove(digest) }
        }
    }
}

/// What a new poster is made of, before its images are stored.
public struct PosterDraft: Sendable {
    /// The first and second image.
    public var images: [ImageUpload]
    /// The question; may be empty.
    public var contents: String
    /// Hashtags as typed; normalised when stored.
    public var hashtags: [String]
    /// Each image's alt text (``Poster/alt1``); may be empty.
    public var alt1: String
    public var alt2: String

    /// A draft; hashtags are normalised when stored.
    public init(
        image1: ImageUpload, image2: ImageUpload, contents: String = "", hashtags: [String] = [], alt1: String = "", alt2: String = ""
    ) {
        self.images = [image1, image2]
        self.contents = contents
        self.hashtags = hashtags
        self.alt1 = alt1
        self.alt2 = alt2
    }
}

/// An uploaded image: a file to read, or bytes already in memory, with a label for errors.
public enum ImageUpload: Sendable {
    case file(String)
    case bytes([UInt8], label: String)

    /// The file name or label errors name.
    public var label: String {
        switch self {
        case .file(let path): path
        case .bytes(_, let label): label
        }
    }

    func bytes(_ codec: ImageCodec) throws -> [UInt8] {
        switch self {
        case .file(let path): try codec.readUpload(at: path)
        case .bytes(let bytes, _): bytes
        }
    }
}

/// A request a board refuses.
public enum BoardError: KindedError, Sendable, Equatable {
    /// No poster has this id.
    case noSuchPoster(Int64)
    /// No image is stored under this digest.
    case noSuchBlob(Digest)
    /// A vote count out of range.
    case invalidVoteCount(Int)
    /// A page cursor that is malformed or was made for another order or query.
    case invalidCursor(String)
    /// A page cursor of a walk older than the vote log keeps (``VoteSnapshot/retention``).
    case cursorExpired(String)

    /// What kind of failure this is.
    public var kind: ErrorKind {
        switch self {
        case .noSuchPoster, .noSuchBlob: .notFound
        case .invalidVoteCount, .invalidCursor, .cursorExpired: .invalidInput
        }
    }

    /// One sentence naming the thing and the reason.
    public var description: String {
        switch self {
        case .noSuchPoster(let id): "poster #\(id): no such poster"
        case .noSuchBlob(let digest): "no image with digest \(digest.hex)"
        case .invalidVoteCount(let times): "cannot add \(times) votes: the count must be from 1 to \(VoteBatcher.maximumTimes)"
        case .invalidCursor(let text): "the page cursor '\(text.prefix(40))' is not valid for this list; start from the first page"
        case .cursorExpired(let text):
            "the page cursor '\(text.prefix(40))' belongs to a walk begun more than \(VoteSnapshot.retention / 60) minutes ago; start from the first page"
        }
    }
}
