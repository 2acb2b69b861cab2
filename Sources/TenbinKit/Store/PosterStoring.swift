/// A poster about to be stored: its text, hashtags, and two already-written images.
public struct NewPoster: Sendable, Hashable {
    /// The question; may be empty.
    public var contents: String
    /// Normalised hashtags.
    public var hashtags: [String]
    /// The first and second image.
    public var images: [StoredImage]
    /// The SHA-256 of each image's upload, remembered so the same file is recognised later.
    public var sources: [Digest?]

    /// Creates a poster to insert; hashtags are normalised.
    public init(contents: String, hashtags: [String], images: [StoredImage], sources: [Digest?] = [nil, nil]) {
        // Invariant of the data model: a poster has exactly two images.
        precondition(images.count == 2 && sources.count == 2, "a poster has exactly two images")
        self.contents = contents
        self.hashtags = Hashtags.normalize(hashtags)
        self.images = images
        self.sources = sources
    }
}

/// Where posters, votes and blob references live.
public protocol PosterStoring: Sendable {
    /// Inserts a poster and its blob rows in one transaction. `beforeCommit` runs inside the
    /// transaction, holding the write lock, to make sure the blob files exist.
    func insert(_ poster: NewPoster, createdAt: Timestamp, encodingKey: String, beforeCommit: () throws -> Void) throws -> Poster
    /// Inserts many posters in one transaction (batch import); ids follow the array's order.
    func insert(_ posters: [NewPoster], createdAt: Timestamp, encodingKey: String, beforeCommit: () throws -> Void) throws -> [Poster]
    /// Adds `times` votes to one side in one statement; nil when there is no such poster.
    func vote(id: Int64, side: VoteSide, times: Int) throws -> Poster?
    /// One poster, or nil.
    func poster(id: Int64) throws -> Poster?
    /// A page of posters in the given order.
    func posters(order: FeedOrder, limit: Int, offset: Int) throws -> [Poster]
    /// Deletes a poster and the blob rows only it used; returns it and those digests.
    func delete(id: Int64) throws -> (poster: Poster, orphaned: [Digest])?
    /// The stored image an upload became under the given encoding options, if it was seen.
    func storedImage(source: Digest, encodingKey: String) throws -> StoredImage?
    /// Runs `body` holding the store's write lock, with the set of digests that rows reference.
    func withWriteLock<T>(_ body: (_ referenced: Set<Digest>) throws -> T) throws -> T
    /// Deletes blob rows that no poster references; returns their digests.
    func removeUnreferencedBlobRows() throws -> [Digest]
    /// Every blob row.
    func blobRows() throws -> [StoredImage]
    /// SQLite's own integrity and foreign-key checks; one line per problem.
    func integrityProblems() throws -> [String]
    /// How many posters there are.
    func count() throws -> Int
    /// Inserts many posters in one transaction, skipping each one identical (same two images,
    /// contents and hashtags) to a poster already stored or earlier in the batch; see
    /// `PosterStore+Import.swift`.
    func importPosters(_ posters: [NewPoster], createdAt: Timestamp, encodingKey: String, beforeCommit: () throws -> Void) throws
        -> [PosterImportOutcome]
    /// The id of a stored poster identical to `poster`, if there is one.
    func matchingPoster(_ poster: NewPoster) throws -> Int64?
    /// A page of the posters matching `query` (every word in the contents or a hashtag).
    func search(query: SearchQuery, order: FeedOrder, limit: Int, offset: Int) throws -> [Poster]
}
