import TenbinKit

/// Reads and writes on one connection inside one transaction: the SQLite half of the store
/// seam. Every statement is prepared once per connection and reused.
struct SQLiteSession: StoreWriting {
    let db: Database
    /// Blob ids this session looked up. A session lives for one transaction, and inside a
    /// transaction a blob's id changes only when this session deletes its row (which forgets
    /// it), so the cache is exact; an import batch looks up a few blobs thousands of times.
    private let blobIDs = BlobIDCache()

    /// Blob ids by digest (a class, so the session struct can be used without `mutating`).
    private final class BlobIDCache {
        var ids: [Digest: Int64] = [:]
    }

    /// The least a write moves merges of the search index on by, in bytes of lists
    /// (``mergeBudget(written:)``).
    let searchMergeStep: Int

    /// Whether votes update the trending score (see ``SQLiteStore/scoresVotes``).
    let scoresVotes: Bool

    /// The store's walk keys read from the vote log so far (``VoteLogKeys``); without them, a
    /// walk's page reads the log afresh.
    let voteLogKeys: VoteLogKeys?

    /// Whether the search index's segments record their tops (schema 19; migrations 8 and 9
    /// ran before, see ``segmentTopColumn``).
    let segmentTops: Bool

    init(
        _ db: Database, searchMergeStep: Int = SQLiteSession.searchMergeStep, scoresVotes: Bool = true, voteLogKeys: VoteLogKeys? = nil,
        segmentTops: Bool = true
    ) {
        self.db = db
        self.segmentTops = segmentTops
        self.searchMergeStep = searchMergeStep
        self.scoresVotes = scoresVotes
        self.voteLogKeys = voteLogKeys
    }

    /// ``searchMergeStep`` unless a store is told otherwise.
    static let searchMergeStep = 1 << 20

    static let posterColumns = """
        SELECT p.id, p.contents, p.good1, p.good2, p.created_at,
               b1.digest, b1.format, b1.width, b1.height, b1.bytes,
               b2.digest, b2.format, b2.width, b2.height, b2.bytes, p.alt1, p.alt2, p.trend
        FROM poster p JOIN blob b1 ON b1.id = p.image1 JOIN blob b2 ON b2.id = p.image2
        """

    /// One part of popular or trending order (most votes, or the highest score, first, then
    /// newest), read from an index of its own: posters with votes from `poster_voted` (votes,
    /// then id) or `poster_trending` (score, then id), then posters without from
    /// `poster_unvoted` (id alone). A new poster has no votes, so it is appended at the right
    /// edge of `poster_unvoted`, where SQLite splits a page cheaply; the single index of
    /// schemas 1–6 put it at an interior point, after every voted poster (Migrations, step 7).
    /// A poster's score is above 0 exactly when it has votes (``Trending``), so both orders
    /// share the unvoted part.
    ///
    /// Each part's condition repeats its index's own (`> 0`, `<= 0`), so SQLite can use the
    /// index, and after a cursor each part begins with a seek: the rest of the cursor's vote
    /// count (score), then fewer, then the unvoted. (A row value `(votes, id) < (?, ?)`, as
    /// before, is no index bound to SQLite: every page after a cursor scanned popular order
    /// from its start.)
    struct PopularPart {
        /// The WHERE condition, over poster `p`, with `?` for ``bindings``.
        let condition: String
        let bindings: [any SQLValue]
        let orderBy: String

        private static let votes = "p.good1 + p.good2"
        private static let unvoted = PopularPart(condition: "\(votes) <= 0", bindings: [], orderBy: "p.id DESC")

        /// The parts of `order` (popular or trending) that follow `after` (all of it without
        /// one), in order.
        static func following(_ after: FeedPosition?, order: FeedOrder = .popular) -> [PopularPart] {
            // Popular ranks by votes, trending by score (`poster_trending`).
            let (key, position): (String, Int64) =
                order == .trending ? ("p.trend", after?.score ?? 0) : (votes, Int64(after?.votes ?? 0))
            let voted = PopularPart(condition: "\(key) > 0", bindings: [], orderBy: "\(key) DESC, p.id DESC")
            guard let after else { return [voted, unvoted] }
            guard position > 0 else { return [unvoted.narrowed("p.id < ?", after.id)] }
            return [
                PopularPart(
                    condition: voted.condition + " AND \(key) = ? AND p.id < ?", bindings: [position, after.id], orderBy: "p.id DESC"),
                voted.narrowed("\(key) < ?", position),
                unvoted,
            ]
        }

        private func narrowed(_ condition: String, _ value: any SQLValue) -> PopularPart {
            PopularPart(condition: self.condition + " AND " + condition, bindings: [value], orderBy: orderBy)
        }
    }

    /// A list of ids as one JSON array parameter, so one prepared statement serves any count.
    static func idList(_ ids: some Sequence<Int64>) -> String {
        "[" + ids.map(String.init).joined(separator: ",") + "]"
    }

    // MARK: Reading

    func posters(ids: [Int64]) throws -> [Poster] {
        guard !ids.isEmpty else { return [] }
        if ids.count == 1 {
            // The common case (a vote, a poster page): no JSON to build or parse.
            let statement = try db.statement(Self.posterColumns + " WHERE p.id = ?").bind(ids[0])
            return try withHashtags(try statement.map(Self.decodePoster))
        }
        let rows = try db.statement(Self.posterColumns + " WHERE p.id IN (SELECT value FROM json_each(?))")
            .bind(Self.idList(ids)).map(Self.decodePoster)
        let byID = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var seen: Set<Int64> = []
        return try withHashtags(ids.compactMap { id in seen.insert(id).inserted ? byID[id] : nil })
    }

    /// `posters` with their hashtags, read in one statement.
    func withHashtags(_ posters: [Poster]) throws -> [Poster] {
        guard !posters.isEmpty else { return posters }
        var tags: [Int64: [String]] = [:]
        if posters.count == 1 {
            tags[posters[0].id] = try db.statement("SELECT tag FROM hashtag WHERE poster_id = ? ORDER BY position")
                .bind(posters[0].id).map { $0.text(0) }
        } else {
            let statement = try db.statement(
                "SELECT poster_id, tag FROM hashtag WHERE poster_id IN (SELECT value FROM json_each(?)) ORDER BY poster_id, position")
            try statement.bind(Self.idList(posters.map(\.id)))
            while try statement.step() { tags[statement.int64(0), default: []].append(statement.text(1)) }
        }
        return posters.map { poster in
            var poster = poster
            poster.hashtags = tags[poster.id] ?? []
            return poster
        }
    }

    func page(order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int) throws -> [Poster] {
        guard limit > 0 else { return [] }
        let statement: Statement
        switch (order, after) {
        case (.new, nil):
            statement = try db.statement(Self.posterColumns + " ORDER BY p.id DESC LIMIT ? OFFSET ?").bind(limit, offset)
        case (.new, let after?):
            statement = try db.statement(Self.posterColumns + " WHERE p.id < ? ORDER BY p.id DESC LIMIT ? OFFSET ?")
                .bind(after.id, limit, offset)
        case (.popular, _), (.trending, _):
            return try withHashtags(popularPage(order: order, after: after, offset: offset, limit: limit))
        }
        return try withHashtags(try statement.map(Self.decodePoster))
    }

    /// A page of popular or trending order, part by part (``PopularPart``) until it is full.
    /// An offset that passes a whole part goes on into the next.
    private func popularPage(order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int) throws -> [Poster] {
        var posters: [Poster] = []
        var offset = offset
        for part in PopularPart.following(after, order: order) where posters.count < limit {
            let rows = try db.statement(
                Self.posterColumns + " WHERE \(part.condition) ORDER BY \(part.orderBy) LIMIT ? OFFSET ?"
            ).bind(part.bindings + [limit - posters.count, offset]).map(Self.decodePoster)
            if rows.isEmpty && offset > 0 {
                // The offset passed this whole part: count it, and skip the rest in the next.
                let passed =
                    try db.statement("SELECT count(*) FROM poster p WHERE \(part.condition)").bind(part.bindings)
                    .first { $0.int(0) } ?? 0
                offset = max(0, offset - passed)
            } else {
                offset = 0
            }
            posters += rows
        }
        return posters
    }

    func count() throws -> Int {
        try db.statement("SELECT count(*) FROM poster").first { $0.int(0) } ?? 0
    }

    func storedImage(source: Digest, encodingKey: String) throws -> StoredImage? {
        try db.statement(
            """
            SELECT b.digest, b.format, b.width, b.height, b.bytes FROM upload u JOIN blob b ON b.id = u.blob_id
            WHERE u.source = ? AND u.options = ?
            """
        ).bind(source.hex, encodingKey).first { try Self.decodeImage($0, from: 0) }
    }

    func storedImage(digest: Digest) throws -> StoredImage? {
        try db.statement("SELECT digest, format, width, height, bytes FROM blob WHERE digest = ?").bind(digest.hex)
            .first { try Self.decodeImage($0, from: 0) }
    }

    func blobRowsPresent(_ digests: [Digest]) throws -> Set<Digest> {
        guard !digests.isEmpty else { return [] }
        let list = "[" + digests.map { "\"\($0.hex)\"" }.joined(separator: ",") + "]"
        let found = try db.statement("SELECT digest FROM blob WHERE digest IN (SELECT value FROM json_each(?))").bind(list)
            .map { Digest(hex: $0.text(0)) }
        return Set(found.compactMap { $0 })
    }

    func blobRows() throws -> [StoredImage] {
        try db.statement("SELECT digest, format, width, height, bytes FROM blob ORDER BY digest").map { try Self.decodeImage($0, from: 0) }
    }

    func posterIDs(using digest: Digest) throws -> [Int64] {
        guard let blob = try blobID(digest) else { return [] }
        return try db.statement("SELECT id FROM poster WHERE image1 = ?1 OR image2 = ?1 ORDER BY id").bind(blob).map { $0.int64(0) }
    }

    func posterIDs(image1: Digest, image2: Digest, contents: String) throws -> [Int64] {
        guard let first = try blobID(image1), let second = try blobID(image2) else { return [] }
        return try db.statement(Self.identityLookup).bind(first, second, ContentsHash.of(contents), contents).map { $0.int64(0) }
    }

    /// The integer id poster and upload rows reference a blob by (schema 4), if its row exists.
    /// The mapping never leaves the backend: the store seam speaks in digests.
    func blobID(_ digest: Digest) throws -> Int64? {
        if let id = blobIDs.ids[digest] { return id }
        let id = try db.statement("SELECT id FROM blob WHERE digest = ?").bind(digest.hex).first { $0.int64(0) }
        if let id { blobIDs.ids[digest] = id }
        return id
    }

    static func decodePoster(_ row: Statement) throws -> Poster {
        Poster(
            id: row.int64(0), contents: row.text(1), hashtags: [], good1: row.int(2), good2: row.int(3),
            createdAt: Timestamp(secondsSince1970: row.int64(4)),
            images: [try decodeImage(row, from: 5), try decodeImage(row, from: 10)], alt1: row.text(15), alt2: row.text(16),
            trendingScore: row.int64(17))
    }

    static func decodeImage(_ row: Statement, from column: Int32) throws -> StoredImage {
        let text = row.text(column)
        guard let digest = Digest(hex: text), let format = ImageFormat(rawValue: row.text(column + 1)) else {
            throw SQLiteError(code: 11, message: "blob row \(text.prefix(64)) is malformed", sql: nil)
        }
        return StoredImage(
            digest: digest, format: format, width: row.int(column + 2), height: row.int(column + 3), bytes: row.int(column + 4))
    }

    // MARK: Writing

    /// The statements a poster's insert runs (see SQLiteSession+Import.swift).
    static let posterInsert =
        "INSERT INTO poster (contents, contents_hash, created_at, image1, image2, alt1, alt2) VALUES (?, ?, ?, ?, ?, ?, ?)"
    static let hashtagInsert = "INSERT INTO hashtag (poster_id, position, tag) VALUES (?, ?, ?)"
    static let searchKeyInsert = "INSERT INTO search_key (poster_id, key) VALUES (?, ?)"
    /// The posters with two images and contents (their hash, then the text itself).
    static let identityLookup =
        "SELECT id FROM poster WHERE image1 = ? AND image2 = ? AND contents_hash = ? AND contents = ? ORDER BY id"

    func lockBlobs(_ digests: [Digest]) throws {
        // Nothing to do: every write transaction is BEGIN IMMEDIATE, which already excludes
        // every other writer of every process until it ends.
    }

    func insertBlob(_ image: StoredImage, source: Digest?, encodingKey: String) throws {
        try db.statement("INSERT OR IGNORE INTO blob (digest, format, width, height, bytes, source) VALUES (?, ?, ?, ?, ?, ?)")
            .bind(image.digest.hex, image.format.rawValue, image.width, image.height, image.bytes, source?.hex).run()
        if let source {
            try db.statement("INSERT OR REPLACE INTO upload (source, options, blob_id) SELECT ?, ?, id FROM blob WHERE digest = ?")
                .bind(source.hex, encodingKey, image.digest.hex).run()
        }
    }

    func insertPoster(_ poster: NewPoster, createdAt: Timestamp, search: SearchRecord) throws -> Int64 {
        // A batch of one (SQLiteSession+Import.swift): the same statements either way.
        try insertPosters([poster], createdAt: createdAt, search: [search])[0]
    }

    func insertHashtags(_ hashtags: [String], of id: Int64) throws {
        for (position, tag) in hashtags.enumerated() {
            try db.statement(Self.hashtagInsert).bind(id, position, tag).run()
        }
    }

    /// The vote statement: both counts and the trending score (`?4`, worked out from the score
    /// read just before, under the same write lock).
    static let voteUpdate = "UPDATE poster SET good1 = good1 + ?1, good2 = good2 + ?2, trend = ?4 WHERE id = ?3"

    /// The vote statement without the score, for `make bench`'s comparison only
    /// (``SQLiteStore/scoresVotes``): what a vote cost before trending order.
    static let voteUpdateWithoutScore = "UPDATE poster SET good1 = good1 + ?1, good2 = good2 + ?2 WHERE id = ?3"

    /// Adds a delta to poster `id` and its bucket starting at `start`: the poster as it was
    /// before, and its new score; nil when there is no such poster or it is hidden.
    private func addVotes(id: Int64, good1: Int, good2: Int, start: Int64, at time: Timestamp) throws -> (
        before: Poster, score: Int64
    )? {
        // The poster as it stands, read under the write lock the transaction holds, so nothing
        // moves it before the update below: what the update leaves is this plus the delta. A
        // hidden poster is gone for the public: its votes count as a missing poster's.
        guard let before = try db.statement(Self.visiblePosterByID).bind(id).first(Self.decodePoster) else { return nil }
        // One statement: SQLite applies it atomically under the write lock, so concurrent
        // voters in any number of processes never lose or double a vote. The new score is worked
        // out here (``Trending/adding(_:to:)``, as the memory backend does) from the score read
        // above, so SQLite and the memory backend round alike.
        var score = before.trendingScore
        if scoresVotes {
            score = Trending.adding(Trending.weight(count: good1 + good2, at: time), to: before.trendingScore)
            try db.statement(Self.voteUpdate).bind(good1, good2, id, score).run()
        } else {
            try db.statement(Self.voteUpdateWithoutScore).bind(good1, good2, id).run()
        }
        // In the same transaction: the timeline's totals are the counts.
        try addToBucket(id: id, start: start, good1: good1, good2: good2)
        return (before, score)
    }

    /// A poster by id unless it is hidden.
    static let visiblePosterByID = posterColumns + " WHERE p.id = ?1 AND NOT EXISTS (SELECT 1 FROM poster_hidden WHERE poster_id = ?1)"

    func addVotes(_ deltas: [VoteDelta], at time: Timestamp) throws -> [Poster] {
        // In-process, a prepared statement run once per poster costs what one statement over
        // the whole batch would, without building and parsing a list of deltas.
        let start = Timeline.minuteStart(of: time)
        var after: [Poster] = []
        after.reserveCapacity(deltas.count)
        var log: [(id: Int64, votes: Int, score: Int64)] = []
        log.reserveCapacity(deltas.count)
        var exact = true
        for delta in deltas {
            guard let (before, score) = try addVotes(id: delta.id, good1: delta.good1, good2: delta.good2, start: start, at: time)
            else { continue }
            log.append((delta.id, before.good1 &+ before.good2, before.trendingScore))
            // The poster as the update left it, without reading it again (the write lock has
            // been held since it was read). Counts past Int.max, which SQLite keeps as a real
            // number, are read back instead.
            var poster = before
            let (good1, overflow1) = before.good1.addingReportingOverflow(delta.good1)
            let (good2, overflow2) = before.good2.addingReportingOverflow(delta.good2)
            (poster.good1, poster.good2, poster.trendingScore) = (good1, good2, score)
            exact = exact && !overflow1 && !overflow2
            after.append(poster)
        }
        try logVoteBatch(log, at: time)
        guard exact else { return try posters(ids: log.map(\.id)) }
        return try withHashtags(after)
    }

    func updateText(id: Int64, contents: String, hashtags: [String], search: SearchRecord) throws -> Bool {
        try db.statement("UPDATE poster SET contents = ?, contents_hash = ? WHERE id = ?").bind(contents, ContentsHash.of(contents), id)
            .run()
        guard db.changes == 1 else { return false }
        try db.statement("DELETE FROM hashtag WHERE poster_id = ?").bind(id).run()
        try insertHashtags(hashtags, of: id)
        try removeSearch(id: id)
        try indexSearch(id: id, search)
        return true
    }

    func deletePoster(id: Int64) throws -> Bool {
        try removeSearch(id: id)
        try db.statement("DELETE FROM poster WHERE id = ?").bind(id).run()
        return db.changes == 1
    }

    func deleteBlobRow(_ digest: Digest) throws {
        blobIDs.ids[digest] = nil
        try db.statement("DELETE FROM blob WHERE digest = ?").bind(digest.hex).run()
    }

    func unreferencedBlobRows() throws -> [Digest] {
        try db.statement(
            """
            SELECT digest FROM blob b WHERE NOT EXISTS (SELECT 1 FROM poster WHERE image1 = b.id)
            AND NOT EXISTS (SELECT 1 FROM poster WHERE image2 = b.id) ORDER BY digest
            """
        ).map { Digest(hex: $0.text(0)) }.compactMap { $0 }
    }

    /// Empties the search tables (the index is derived from the keys, the keys from the
    /// posters' text, so a rebuild reads neither): a damaged block is gone with them.
    func clearSearch() throws {
        try db.execute(
            "DELETE FROM search_posting; DELETE FROM search_segment; DELETE FROM search_merge; DELETE FROM search_stale; DELETE FROM search_key; DELETE FROM search_reading"
        )
    }

    func storeSearch(ids: [Int64], search: [SearchRecord]) throws {
        try indexSearch(ids: ids, search: search)
    }

    // MARK: Checking

    /// SQLite's own integrity and foreign-key checks, and the search index's structure.
    func integrityProblems() throws -> [String] {
        var problems = try db.statement("PRAGMA integrity_check").map { $0.text(0) }.filter { $0 != "ok" }
        problems += try db.statement("PRAGMA foreign_key_check").map {
            "row \($0.int64(1)) of table \($0.text(0)) references a missing row in \($0.text(2))"
        }
        return problems + (try searchProblems())
    }
}
