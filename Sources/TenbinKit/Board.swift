import Dispatch

/// The one service every front end talks to, and the only write path into a store.
///
/// A board owns a store folder: `tenbin.sqlite` for posters and `blobs/` for images.
/// Library code never prints or exits; every method returns a value or throws an error
/// that names what it is about.
public final class Board: Sendable {
    /// Everything a board is built from; tests swap the parts.
    public struct Configuration: Sendable {
        /// The store folder.
        public var storePath: String
        /// Limits checked on every upload.
        public var limits: ImageLimits
        /// How uploads are stored.
        public var encoding: EncodingOptions
        /// The clock posters are dated by.
        public var now: @Sendable () -> Timestamp

        /// A configuration with tenbin's defaults for the store at `storePath`.
        public init(
            storePath: String, limits: ImageLimits = ImageLimits(), encoding: EncodingOptions = EncodingOptions(),
            now: @escaping @Sendable () -> Timestamp = Timestamp.now
        ) {
            self.storePath = storePath
            self.limits = limits
            self.encoding = encoding
            self.now = now
        }
    }

    /// What this board was opened with.
    public let configuration: Configuration
    let store: any PosterStoring
    let blobs: any BlobStoring
    /// The upload pipeline this board re-encodes with.
    public let codec: ImageCodec

    /// Opens the board at `configuration.storePath`. With `create`, the folder and database
    /// are made when missing; without, a missing store reads as an empty board and nothing
    /// is created.
    public convenience init(_ configuration: Configuration, create: Bool) throws {
        if create { try FileSystem.makeFolders(configuration.storePath) }
        let store = try PosterStore(path: "\(configuration.storePath)/tenbin.sqlite", create: create)
        self.init(configuration, store: store, blobs: BlobStore(root: "\(configuration.storePath)/blobs"))
    }

    /// A board over the given parts (for tests and other front ends).
    public init(_ configuration: Configuration, store: any PosterStoring, blobs: any BlobStoring) {
        self.configuration = configuration
        self.store = store
        self.blobs = blobs
        self.codec = ImageCodec(limits: configuration.limits, encoding: configuration.encoding)
    }

    // MARK: Reading

    /// One poster.
    public func poster(id: Int64) throws -> Poster {
        guard let poster = try store.poster(id: id) else { throw BoardError.noSuchPoster(id) }
        return poster
    }

    /// A page of a feed.
    public func posters(order: FeedOrder = .new, limit: Int = 20, offset: Int = 0) throws -> [Poster] {
        try store.posters(order: order, limit: limit, offset: offset)
    }

    /// A page of the posters whose contents or hashtags contain every word of `query`,
    /// ignoring width, Latin case and hiragana/katakana (see ``SearchQuery``). A query with no
    /// words finds nothing.
    public func search(query: String, order: FeedOrder = .new, limit: Int = 20, offset: Int = 0) throws -> [Poster] {
        let parsed = SearchQuery(query)
        guard !parsed.isEmpty else { return [] }
        return try store.search(query: parsed, order: order, limit: limit, offset: offset)
    }

    /// The stored bytes of one of a poster's images.
    public func imageBytes(id: Int64, side: VoteSide) throws -> (image: StoredImage, bytes: [UInt8]) {
        let image = try poster(id: id).images[side.rawValue - 1]
        return (image, try blobs.read(image.digest))
    }

    /// How many posters the board has.
    public func count() throws -> Int { try store.count() }

    // MARK: Writing

    /// Adds `times` votes to one side of a poster, in one statement.
    @discardableResult
    public func vote(id: Int64, side: VoteSide, times: Int = 1) throws -> Poster {
        guard times >= 1 else { throw BoardError.invalidVoteCount(times) }
        guard let poster = try store.vote(id: id, side: side, times: times) else { throw BoardError.noSuchPoster(id) }
        return poster
    }

    /// Validates and re-encodes both images in memory, and only when both are good writes
    /// their blobs, then commits the poster and its blob rows in one transaction. A bad
    /// image leaves nothing behind; a failure after the blobs are written leaves only whole,
    /// unreferenced files that `gc` removes.
    public func post(_ draft: PosterDraft) throws -> Poster {
        let uploads = draft.images
        let slots = Locked([Result<PreparedImage, any Error>?](repeating: nil, count: uploads.count))
        // The two images are independent: prepare them on both cores at once.
        DispatchQueue.concurrentPerform(iterations: uploads.count) { index in
            let result = Result { try self.prepare(uploads[index]) }
            slots.withLock { $0[index] = result }
        }
        // concurrentPerform returns after every iteration has stored its result.
        let images = try slots.withLock { $0 }.map { try $0!.get() }
        return try commit(draft, try images.map { try writeBlob($0) })
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
        if let known = try store.storedImage(source: source, encodingKey: codec.encoding.key), blobs.contains(known.digest) {
            return PreparedImage(upload: upload, source: source, known: known, encoded: nil)
        }
        return PreparedImage(upload: upload, source: source, known: nil, encoded: try codec.reencode(bytes, source: upload.label))
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
            contents: draft.contents, hashtags: draft.hashtags, images: images.map(\.stored), sources: images.map(\.prepared.source))
        return try store.insert(poster, createdAt: configuration.now(), encodingKey: codec.encoding.key) {
            for image in images { try restoreBlob(image) }
        }
    }

    /// Called holding the write lock before a commit: `gc` (which deletes only under that
    /// lock) may have removed the image's file since it was written or found. Puts it back,
    /// re-encoding the upload when its bytes are no longer in memory.
    func restoreBlob(_ image: StoredUpload) throws {
        guard !blobs.contains(image.stored.digest) else { return }
        let upload = image.prepared.upload
        let bytes = try image.prepared.encoded?.bytes ?? codec.reencode(try upload.bytes(codec), source: upload.label).bytes
        guard try blobs.write(bytes) == image.stored.digest else {
            throw ImageError(source: upload.label, stage: .read, reason: "changed while it was being stored; try again")
        }
    }

    /// Deletes a poster, and the blobs no other poster uses.
    @discardableResult
    public func delete(id: Int64) throws -> Poster {
        guard let (poster, orphaned) = try store.delete(id: id) else { throw BoardError.noSuchPoster(id) }
        if !orphaned.isEmpty {
            try store.withWriteLock { referenced in
                for digest in orphaned where !referenced.contains(digest) { try blobs.remove(digest) }
            }
        }
        return poster
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

    /// A draft; hashtags are normalised when stored.
    public init(image1: ImageUpload, image2: ImageUpload, contents: String = "", hashtags: [String] = []) {
        self.images = [image1, image2]
        self.contents = contents
        self.hashtags = hashtags
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
public enum BoardError: Error, CustomStringConvertible, Sendable, Equatable {
    case noSuchPoster(Int64)
    case invalidVoteCount(Int)

    public var description: String {
        switch self {
        case .noSuchPoster(let id): "no poster with id \(id)"
        case .invalidVoteCount(let times): "cannot add \(times) votes: the count must be at least 1"
        }
    }
}
