import Dispatch
import Synchronization

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

    /// Validates and re-encodes both images in memory, writes their blobs, then commits the
    /// poster and its blob rows in one transaction. On any failure nothing is recorded (a
    /// blob file already written is only an unreferenced file that `gc` removes).
    public func post(_ draft: PosterDraft) throws -> Poster {
        var prepared: [Result<PreparedImage, any Error>] = Array(repeating: .failure(BoardError.noSuchPoster(0)), count: 2)
        let uploads = draft.images
        let slots = Mutex(prepared)
        // The two images are independent: prepare them on both cores at once.
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let result = Result { try self.prepare(uploads[index]) }
            slots.withLock { $0[index] = result }
        }
        prepared = slots.withLock { $0 }
        let images = try prepared.map { try $0.get() }
        return try commit(draft, images)
    }

    /// An image ready to be referenced: stored (or known to be), with its upload's digest.
    struct PreparedImage: Sendable {
        let stored: StoredImage
        let source: Digest
        let upload: ImageUpload
    }

    /// Reads, recognises and stores one upload; an upload seen before under the same
    /// encoding options is not decoded again.
    func prepare(_ upload: ImageUpload) throws -> PreparedImage {
        let bytes = try upload.bytes(codec)
        let source = Digest(of: bytes)
        if let known = try store.storedImage(source: source, encodingKey: codec.encoding.key), blobs.contains(known.digest) {
            return PreparedImage(stored: known, source: source, upload: upload)
        }
        let stored = try store(bytes, label: upload.label)
        return PreparedImage(stored: stored, source: source, upload: upload)
    }

    private func store(_ bytes: [UInt8], label: String) throws -> StoredImage {
        let encoded = try codec.reencode(bytes, source: label)
        let digest = try blobs.write(encoded.bytes)
        return StoredImage(digest: digest, format: encoded.format, width: encoded.width, height: encoded.height, bytes: encoded.bytes.count)
    }

    func commit(_ draft: PosterDraft, _ images: [PreparedImage]) throws -> Poster {
        let poster = NewPoster(
            contents: draft.contents, hashtags: draft.hashtags, images: images.map(\.stored), sources: images.map(\.source))
        return try store.insert(poster, createdAt: configuration.now(), encodingKey: codec.encoding.key) {
            // Holding the write lock: `gc` (which deletes only under this lock) may have removed
            // a file between its write and now. Put it back before the rows point at it.
            for image in images where !blobs.contains(image.stored.digest) {
                _ = try self.store(try image.upload.bytes(codec), label: image.upload.label)
            }
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
    public var contents: String
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
