import Dispatch

/// The seam between the core and a database: everything ``Board`` needs from where posters
/// live, and nothing of how. A backend (SQLite, PostgreSQL, the tests' in-memory one) is its
/// own target; the core holds the logic — search planning and recheck, import
/// de-duplication, live diffs, vote batching — and speaks to a backend only through these
/// protocols. Every backend passes the same contract suite.
public protocol StoreBackend: Sendable {
    /// Where the store lives, for messages (never a password).
    var location: String { get }

    /// Runs `body` on one consistent snapshot of the store. Many reads may run at once, and
    /// none waits for a writer.
    func read<T>(_ body: (any StoreReading) throws -> T) throws -> T

    /// ``read(_:)`` for a `body` that makes one call reading one thing — a page, posters by
    /// id, the count, a blob row — never a search (whose candidates come in batches). A
    /// backend that answers each such call in one statement may run it outside a
    /// transaction, since one statement already sees one snapshot (PostgreSQL: one round
    /// trip instead of BEGIN, the statement and COMMIT).
    func readSingle<T>(_ body: (any StoreReading) throws -> T) throws -> T

    /// Runs `body` in one write transaction: everything it writes commits together when it
    /// returns, and nothing does when it throws. Writes from any number of processes are
    /// exact (no lost or doubled update).
    func write<T>(_ body: (any StoreWriting) throws -> T) throws -> T

    /// Adds a batch of votes cast at `time` (as ``StoreWriting/addVotes(_:at:)``, timeline
    /// buckets included) in a transaction of its own and returns the posters as it left them.
    /// A backend may do better than a `write` around `addVotes` (PostgreSQL: one statement,
    /// one round trip, no BEGIN or COMMIT).
    func commitVotes(_ deltas: [VoteDelta], at time: Timestamp) throws -> [Poster]

    /// A page of the posters the public may see (every one but the ``StoreReading/hiddenPosters()``)
    /// in `order`, after `after` when given, skipping `offset` of them, at most `limit`, from one
    /// snapshot; nil when the backend has no such read, and the core reads the hidden posters
    /// first and leaves them out of the pages it reads (``Board``'s `visiblePage`). PostgreSQL
    /// answers in one statement, where the core's way costs a round trip of its own.
    func visiblePage(order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int) throws -> [Poster]?

    /// A page of the posters matching `query` that the public may see, in `order`, after
    /// `after` when given, skipping `offset` of them, at most `limit`, from one snapshot. The
    /// backend rechecks every candidate with the core's test (``SearchGrams/key(_:holdsEvery:)``)
    /// where its index does not answer the query exactly (``SearchGrams/indexIsExact(for:)``),
    /// and leaves the hidden posters out in the same snapshot, `offset` and `limit` counting the
    /// others. nil when the backend has no such read: the core then reads the hidden posters and
    /// the candidates (``StoreReading/searchCandidates(_:below:visit:)``) and rechecks them.
    /// PostgreSQL answers newest first, mostly in one statement.
    func visibleSearchPosters(_ query: SearchQuery, order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int) throws
        -> [Poster]?

    /// Where live feeds learn that something was committed.
    var changes: any ChangeSource { get }

    /// The backend's own gauges and counters for `/metrics`, in Prometheus' text format (empty
    /// when it has none; PostgreSQL: its hot standbys, see docs/postgres.md).
    var metricsText: String { get }

    /// What the database's own checks find wrong, one line each (empty when sound); the core
    /// adds its own checks of meaning (search keys, blob files).
    func integrityProblems() throws -> [String]

    /// Closes every connection the store holds, once what is running on them has ended, and
    /// returns when they are closed (SQLite: the writer last, so it moves its write-ahead log
    /// into the database and removes it; PostgreSQL: after announcing what was committed).
    /// Afterwards every call throws ``StoreError`` with reason `closed`. Closing again does
    /// nothing. Its owner calls it (``Board/close()``) rather than relying on letting go of it.
    func close()
}

extension StoreBackend {
    /// None.
    public var metricsText: String { "" }

    /// ``read(_:)``.
    public func readSingle<T>(_ body: (any StoreReading) throws -> T) throws -> T {
        try read(body)
    }

    /// nil: the core reads the hidden posters and filters pages itself.
    public func visiblePage(order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int) throws -> [Poster]? {
        nil
    }

    /// nil: the core reads the hidden posters and filters pages itself.
    public func visibleSearchPosters(_ query: SearchQuery, order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int) throws
        -> [Poster]?
    {
        nil
    }

    /// `addVotes` in a `write` of its own.
    public func commitVotes(_ deltas: [VoteDelta], at time: Timestamp) throws -> [Poster] {
        try write { try $0.addVotes(deltas, at: time) }
    }

    /// ``commitVotes(_:at:)`` at the system clock's time.
    public func commitVotes(_ deltas: [VoteDelta]) throws -> [Poster] {
        try commitVotes(deltas, at: .now())
    }
}

/// Reads inside one snapshot. Every method returns posters whole: hashtags are read for a
/// whole page at once, never one query per poster.
public protocol StoreReading {
    /// The posters with these ids, in the order given; ids with no poster are left out.
    func posters(ids: [Int64]) throws -> [Poster]
    /// A page of posters in `order`, after skipping `offset` posters that come after `after`
    /// (or from the start). Ties in popular order go to the higher id.
    func page(order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int) throws -> [Poster]
    /// How many posters there are.
    func count() throws -> Int
    /// The stored image an upload became under the given encoding options, if seen before.
    func storedImage(source: Digest, encodingKey: String) throws -> StoredImage?
    /// The blob row of `digest`, if there is one.
    func storedImage(digest: Digest) throws -> StoredImage?
    /// Which of `digests` have a blob row.
    func blobRowsPresent(_ digests: [Digest]) throws -> Set<Digest>
    /// Every blob row, by digest.
    func blobRows() throws -> [StoredImage]
    /// The ids of the posters using `digest` as either image, lowest first.
    func posterIDs(using digest: Digest) throws -> [Int64]
    /// The ids of posters with these two images and these contents, lowest first (import's
    /// identity candidates; the core compares hashtags).
    func posterIDs(image1: Digest, image2: Digest, contents: String) throws -> [Int64]
    /// ``posterIDs(image1:image2:contents:)`` for a whole import batch at once: one list per
    /// poster, in the order given (a backend may answer in one statement).
    func posterIDs(matching posters: [NewPoster]) throws -> [[Int64]]

    /// Search candidates, newest first: posters whose index holds every term (all posters
    /// when `terms` is empty), starting below id `below` when given. `visit` gets each with its
    /// search key and returns false to stop.
    func searchCandidates(_ terms: [IndexTerm], below: Int64?, visit: (SearchEntry) throws -> Bool) throws
    /// Up to `limit` ids of posters whose index holds every term, in no particular order.
    func searchCandidateIDs(_ terms: [IndexTerm], limit: Int) throws -> [Int64]
    /// The search entries (key and votes) of these posters; ids without one are left out.
    func searchEntries(ids: [Int64]) throws -> [SearchEntry]
    /// Every poster's search entry in popular order (votes, then id, descending), after
    /// `after` when given; `visit` returns false to stop.
    func searchEntriesByVotes(after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws
    /// Every poster's search entry in trending order (score, then id, descending), after
    /// `after` (or from the start), until `visit` returns false.
    func searchEntriesByScore(after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws

    // Walks through popular order (see `VoteSnapshot.swift`).

    /// Where this read stands in the vote log: the number of the last vote batch it sees and
    /// the oldest mark the log still answers for.
    func voteLogMarks() throws -> VoteLogMarks

    /// The key in `order` as of `mark` of every poster a vote batch numbered above `mark`
    /// voted for (popular order: its total votes before the first such batch), deleted posters
    /// left out; empty in orders votes do not move. About one index probe per such poster, however many batches
    /// there were. `mark` is at least ``VoteLogMarks/oldest``.
    func keysAsOf(mark: Int64, order: FeedOrder) throws -> [Int64: Int]

    // Copying a whole board to another store (see `Board+Copy.swift`).

    /// Up to `limit` posters with ids above `afterID`, lowest id first, whole.
    func posters(afterID: Int64, limit: Int) throws -> [Poster]
    /// Up to `limit` blob rows with digests after `after` (from the first when nil), in digest
    /// order, each with the uploads remembered as having become it.
    func blobRecords(after: Digest?, limit: Int) throws -> [BlobRecord]
    /// The highest poster id ever given, deleted posters' included; 0 when none was.
    func lastPosterID() throws -> Int64

    // Moderation (see `Board+Moderation.swift`).

    /// The hidden posters, lowest id first.
    func hiddenPosters() throws -> [HiddenPoster]
    /// The reports of one poster (of every poster when nil), by poster id, then time, then
    /// reporter.
    func reports(posterID: Int64?) throws -> [Report]
    /// The cleared reporters of one poster (of every poster when nil), by poster id, then reporter.
    func clearedReporters(posterID: Int64?) throws -> [ClearedReporter]
    /// Up to `limit` audit entries (of one poster when `posterID` is given) with ids below
    /// `beforeID` when given, newest first.
    func auditEntries(posterID: Int64?, beforeID: Int64?, limit: Int) throws -> [AuditEntry]

    // Blocked images (see `Moderation/`).

    /// The perceptual hashes stored with these blobs' rows; digests without a row or without a
    /// hash (a picture stored before schema 12 and not hashed since, or one too plain to hash)
    /// are left out.
    func perceptualHashes(_ digests: [Digest]) throws -> [Digest: PerceptualHash]
    /// Every entry of the image blocklist, oldest first.
    func blockedImages() throws -> [BlockedImage]

    // Timelines (see ``Timeline``).

    /// The stored timeline buckets of the posters with ids in `ids`, by poster id, then start,
    /// ascending.
    func timelineRows(posters ids: ClosedRange<Int64>) throws -> [TimelineRow]
}

/// Writes inside one transaction; it can read what it wrote.
public protocol StoreWriting: StoreReading {
    /// Makes the blob rows of `digests` this transaction's alone until it ends: a `gc` or a
    /// `delete` removing those blobs waits, and so does a post referencing them. Backends whose
    /// write transactions already exclude each other do nothing.
    func lockBlobs(_ digests: [Digest]) throws
    /// Writes a blob row (unless present) and, with a source, the upload it came from.
    func insertBlob(_ image: StoredImage, source: Digest?, encodingKey: String) throws
    /// Writes a poster row, its hashtags (already normalised) and its search record; returns
    /// the new id, higher than every id ever given before.
    func insertPoster(_ poster: NewPoster, createdAt: Timestamp, search: SearchRecord) throws -> Int64
    /// ``insertPoster(_:createdAt:search:)`` for a whole import batch, in order (`search[i]` is
    /// `posters[i]`'s record); returns the new ids, ascending in the order given.
    func insertPosters(_ posters: [NewPoster], createdAt: Timestamp, search: [SearchRecord]) throws -> [Int64]
    /// Adds a whole batch of votes cast at `time` (one delta per poster, ids distinct and
    /// ascending, so two batches lock shared rows in the same order) to the posters' counts
    /// and to their timelines' minute buckets holding `time`, and returns the posters as this
    /// transaction leaves them, ascending by id. A delta whose poster does not exist, or is
    /// hidden (``hiddenPosters()``: gone for the public, so its votes are refused as a missing
    /// poster's), adds nothing and is left out of the result; the others still apply. The batch is logged in the
    /// vote log under the next batch number (``VoteSnapshot``).
    func addVotes(_ deltas: [VoteDelta], at time: Timestamp) throws -> [Poster]
    /// Replaces a poster's contents, hashtags and search record; false when there is no such poster.
    func updateText(id: Int64, contents: String, hashtags: [String], search: SearchRecord) throws -> Bool
    /// Deletes a poster, its hashtags and its search record; false when there is no such poster.
    func deletePoster(id: Int64) throws -> Bool
    /// Deletes the blob row of `digest` (and the uploads that led to it).
    func deleteBlobRow(_ digest: Digest) throws
    /// The digests of blob rows no poster references.
    func unreferencedBlobRows() throws -> [Digest]

    // Rebuilding search (`tenbin check --repair`, see `Board+Maintenance.swift`).

    /// Starts a rebuild of search: once ``storeSearch(ids:search:)`` has been given every
    /// poster's record in this transaction, those records are all that search holds — keys
    /// and index, whatever state they were in. A backend may empty its search tables here or
    /// keep them and rewrite only what differs. Other writers' changes to search wait for
    /// this transaction; reads go on.
    func clearSearch() throws
    /// Stores the search records of posters that exist (`search[i]` is `ids[i]`'s), ids
    /// ascending and above those of any earlier call in this transaction.
    func storeSearch(ids: [Int64], search: [SearchRecord]) throws

    // Copying a whole board to another store (see `Board+Copy.swift`).

    /// Writes blob rows (those already present are left as they are) and their uploads.
    func insertBlobs(_ records: [BlobRecord]) throws
    /// Writes posters that keep the ids, votes and creation times they have in another store,
    /// with their hashtags and search records, in one batch; the blob rows they reference must
    /// exist. A poster id already present fails the write. New ids are then drawn above them.
    func insertPosters(_ records: [PosterRecord]) throws
    /// Makes every id drawn from now on higher than `id` (never lowers what was reached).
    func reservePosterIDs(through id: Int64) throws

    // Moderation (see `Board+Moderation.swift`). Deleting a poster deletes its reports,
    // cleared reporters and hidden mark with it; its audit entries stay.

    /// Stores a report of an existing poster; false (and nothing written) when this reporter
    /// has a report of this poster already.
    func insertReport(_ report: Report) throws -> Bool
    /// Deletes every report of a poster.
    func deleteReports(posterID: Int64) throws
    /// Stores cleared reporters of existing posters (those present are left as they are).
    func insertClearedReporters(_ cleared: [ClearedReporter]) throws
    /// Marks an existing poster hidden since `since`, or shown when nil (a poster hidden
    /// already keeps its first time).
    func setHidden(posterID: Int64, since: Timestamp?) throws
    /// Appends an entry to the audit log and returns its id, higher than every id before.
    func appendAudit(_ entry: AuditEntry) throws -> Int64
    /// Writes audit entries keeping their ids (a copy); ids already present are left as they are.
    func insertAudit(_ entries: [AuditEntry]) throws

    // Blocked images (see `Moderation/`).

    /// Stores the perceptual hashes of blobs whose rows exist (others are ignored).
    func setPerceptualHashes(_ hashes: [Digest: PerceptualHash]) throws
    /// Adds an entry to the image blocklist, dated `createdAt`, and returns it; when an entry
    /// with the same digest exists, that one is returned unchanged.
    func insertBlockedImage(_ entry: NewBlockedImage, createdAt: Timestamp) throws -> BlockedImage
    /// Removes a blocklist entry; false when there is none with this id.
    func deleteBlockedImage(id: Int64) throws -> Bool

    // Proof of work for posting (see `Moderation/PostProof.swift`).

    /// The key post-proof challenges are signed with: the stored one, or `candidate`, stored
    /// now, when there is none yet (every server on one store signs with the same key).
    func postProofKey(storing candidate: [UInt8]) throws -> [UInt8]
    /// Records the challenge `id` as spent until `expiresAt`, first forgetting those expired
    /// before `now`; false (nothing written) when it is spent already.
    func spendPostProof(id: String, expiresAt: Timestamp, now: Timestamp) throws -> Bool

    /// Adds timeline rows of posters that exist to what their buckets hold (a copy's).
    func insertTimelineRows(_ rows: [TimelineRow]) throws

    /// Applies the folds of ``Timeline/folds(at:)`` due at `now` to the stored buckets: each
    /// moves a bucket's votes into the coarser bucket holding it, so no total changes. A
    /// backend may remember how far it has folded and look only at buckets since.
    func compactTimelines(now: Timestamp) throws

    /// Notes that the vote log's last batch number stood where it stands at `now`, and forgets
    /// the batches up to the last one noted at least `seconds` before `now`: the oldest mark
    /// (``VoteLogMarks/oldest``) becomes that number. It deletes only what aged since the last
    /// call (the log is ordered by batch number). Each backend calls it in the transaction of
    /// every ``VoteSnapshot/pruneEvery``th batch, keeping ``VoteSnapshot/retention``.
    func pruneVoteLog(now: Timestamp, keeping seconds: Int64) throws
}

extension StoreReading {
    /// ``posterIDs(image1:image2:contents:)`` once per poster.
    public func posterIDs(matching posters: [NewPoster]) throws -> [[Int64]] {
        try posters.map { try posterIDs(image1: $0.images[0].digest, image2: $0.images[1].digest, contents: $0.contents) }
    }
}

extension StoreWriting {
    /// ``addVotes(_:at:)`` at the system clock's time.
    public func addVotes(_ deltas: [VoteDelta]) throws -> [Poster] {
        try addVotes(deltas, at: .now())
    }

    /// ``insertPoster(_:createdAt:search:)`` once per poster.
    public func insertPosters(_ posters: [NewPoster], createdAt: Timestamp, search: [SearchRecord]) throws -> [Int64] {
        // Invariant of the callers: one search record per poster.
        precondition(posters.count == search.count, "one search record per poster")
        return try zip(posters, search).map { try insertPoster($0, createdAt: createdAt, search: $1) }
    }
}

/// A blob row with the uploads remembered as having become it (``StoreReading/storedImage(source:encodingKey:)``).
public struct BlobRecord: Sendable, Hashable {
    /// The stored image.
    public var image: StoredImage
    /// The uploads (SHA-256 of the uploaded bytes, and the encoding options' key) that became it.
    public var uploads: [UploadKey]
    /// The picture's perceptual hash, when the row holds one.
    public var perceptualHash: PerceptualHash?

    /// A record.
    public init(image: StoredImage, uploads: [UploadKey], perceptualHash: PerceptualHash? = nil) {
        self.image = image
        self.uploads = uploads
        self.perceptualHash = perceptualHash
    }
}

/// An upload as the store remembers it: what was uploaded, and under which encoding options.
public struct UploadKey: Sendable, Hashable, Comparable {
    /// The SHA-256 of the uploaded bytes.
    public var source: Digest
    /// ``EncodingOptions/key`` at the time.
    public var encodingKey: String

    /// A key.
    public init(source: Digest, encodingKey: String) {
        self.source = source
        self.encodingKey = encodingKey
    }

    public static func < (lhs: UploadKey, rhs: UploadKey) -> Bool {
        (lhs.source.hex, lhs.encodingKey) < (rhs.source.hex, rhs.encodingKey)
    }
}

/// A poster as another store holds it, with the search record its text gives.
public struct PosterRecord: Sendable, Hashable {
    /// The poster, id, votes and creation time included.
    public var poster: Poster
    /// What search stores for its text.
    public var search: SearchRecord

    /// The record of `poster`, its search record computed from its text.
    public init(_ poster: Poster) {
        self.poster = poster
        self.search = SearchRecord(contents: poster.contents, hashtags: poster.hashtags)
    }
}

/// Votes to add to one poster in a batch (``StoreWriting/addVotes(_:)``).
public struct VoteDelta: Sendable, Hashable {
    /// The poster's id.
    public var id: Int64
    /// Votes to add to the first image.
    public var good1: Int
    /// Votes to add to the second image.
    public var good2: Int

    /// A delta.
    public init(id: Int64, good1: Int, good2: Int) {
        self.id = id
        self.good1 = good1
        self.good2 = good2
    }
}

/// Where a poster stands in a feed: what a page continues after.
public struct FeedPosition: Sendable, Hashable {
    /// The poster's id.
    public var id: Int64
    /// Its total votes (popular order only).
    public var votes: Int
    /// Its trending score (trending order only; ``Trending``).
    public var score: Int64

    /// A position at a poster.
    public init(id: Int64, votes: Int = 0, score: Int64 = 0) {
        self.id = id
        self.votes = votes
        self.score = score
    }

    /// The position of `poster`.
    public init(_ poster: Poster) {
        self.init(id: poster.id, votes: poster.totalVotes, score: poster.trendingScore)
    }
}

extension FeedOrder {
    /// Where an entry ranks in this order: higher comes first (popular: votes, then id;
    /// trending: score, then id; new: id).
    package func rank(of entry: SearchEntry) -> (Int64, Int64) {
        switch self {
        case .new: (0, entry.id)
        case .popular: (Int64(entry.votes), entry.id)
        case .trending: (entry.score, entry.id)
        }
    }

    /// Where a position ranks in this order (as ``rank(of:)``).
    package func rank(of position: FeedPosition) -> (Int64, Int64) {
        rank(of: SearchEntry(id: position.id, key: "", votes: position.votes, score: position.score))
    }
}

/// A poster's search key with what ordering needs.
public struct SearchEntry: Sendable, Hashable {
    /// The poster's id.
    public var id: Int64
    /// Its normalised search key (``SearchText/key(contents:hashtags:)``).
    public var key: String
    /// Its total votes.
    public var votes: Int
    /// Its trending score (``Trending``).
    public var score: Int64

    /// An entry.
    public init(id: Int64, key: String, votes: Int, score: Int64 = 0) {
        self.id = id
        self.key = key
        self.votes = votes
        self.score = score
    }
}

/// One piece of a search key as the index stores it, in ASCII (see ``SearchGrams``).
public struct IndexTerm: Sendable, Hashable {
    /// The piece, encoded as an ASCII token.
    public var token: String
    /// True when the index is to match every token starting with `token`.
    public var isPrefix: Bool

    /// A term.
    public init(token: String, isPrefix: Bool = false) {
        self.token = token
        self.isPrefix = isPrefix
    }
}

/// What a backend stores so a poster can be found: its normalised key, exact, and the index
/// pieces computed from it. The core computes both; a backend only stores them.
public struct SearchRecord: Sendable, Hashable {
    /// The normalised key, rechecked against every query.
    public var key: String
    /// The distinct pieces of the key, packed (``SearchGrams/pieces(forKey:)``).
    public var pieces: [UInt64]

    /// The distinct index tokens of the key, space-separated (an FTS5 document).
    public var document: String { SearchGrams.document(ofPieces: pieces) }

    /// The distinct index tokens of the key.
    public var tokens: [String] { pieces.map(SearchGrams.token(ofPiece:)) }

    /// The record of a poster's text.
    public init(contents: String, hashtags: [String]) {
        key = SearchText.key(contents: contents, hashtags: hashtags)
        pieces = SearchGrams.pieces(forKey: key)
    }

    /// The records of `posters`' texts, in their order, made on every core: with readings a
    /// record costs five times what it did without (MeCab parses each text with kanji), and
    /// an import made them one at a time on the thread that reads the manifest.
    package static func records(of posters: [NewPoster]) -> [SearchRecord] {
        let chunk = 256
        guard posters.count > chunk else { return posters.map { SearchRecord(contents: $0.contents, hashtags: $0.hashtags) } }
        let chunks = (posters.count + chunk - 1) / chunk
        let made = Locked([[SearchRecord]](repeating: [], count: chunks))
        DispatchQueue.concurrentPerform(iterations: chunks) { index in
            let part = posters[(index * chunk)..<min(posters.count, (index + 1) * chunk)]
            let records = part.map { SearchRecord(contents: $0.contents, hashtags: $0.hashtags) }
            made.withLock { $0[index] = records }
        }
        return made.withLock { $0.flatMap { $0 } }
    }
}

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
    /// Each image's alt text (``Poster/alt1``), empty when none was given.
    public var alt1: String
    public var alt2: String

    /// Creates a poster to insert; hashtags are normalised.
    public init(
        contents: String, hashtags: [String], images: [StoredImage], sources: [Digest?] = [nil, nil], alt1: String = "", alt2: String = ""
    ) {
        // Invariant of the data model: a poster has exactly two images.
        precondition(images.count == 2 && sources.count == 2, "a poster has exactly two images")
        self.contents = contents
        self.hashtags = Hashtags.normalize(hashtags)
        self.images = images
        self.sources = sources
        self.alt1 = alt1
        self.alt2 = alt2
    }
}
