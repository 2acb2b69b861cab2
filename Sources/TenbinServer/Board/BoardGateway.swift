import TenbinKit

/// Every call the server makes into its board, in one place, so a change in the board's API
/// is a change here only. Every call but ``vote(id:side:times:completion:)`` (which hands its
/// work to the vote batcher) and ``nextChange(after:)`` blocks: callers are on the
/// ``BoardExecutor``, never on libmicrohttpd's threads.
struct BoardGateway: Sendable {
    let board: Board

    init(board: Board) {
        self.board = board
    }

    /// A page of posters and the cursor of the page after it.
    struct Page: Sendable {
        var posters: [Poster]
        var next: String?
    }

    /// A page of a feed, after `cursor` (the `next` of an earlier page) or from the top.
    func page(order: FeedOrder, limit: Int, cursor: String?) throws -> Page {
        let page = try board.page(order: order, limit: limit, after: try Self.cursor(cursor))
        return Page(posters: page.posters, next: page.next?.encoded)
    }

    /// A page of search results, after `cursor` or from the top.
    func search(query: String, order: FeedOrder, limit: Int, cursor: String?) throws -> Page {
        let page = try board.searchPage(query: query, order: order, limit: limit, after: try Self.cursor(cursor))
        return Page(posters: page.posters, next: page.next?.encoded)
    }

    /// A tag's summary: a page of its posters after `cursor`, its totals and its timeline.
    func tag(_ text: String, limit: Int, cursor: String?) throws -> TagSummary {
        try board.tagSummary(text, limit: limit, after: try Self.cursor(cursor))
    }

    private static func cursor(_ text: String?) throws -> PageCursor? {
        guard let text else { return nil }
        guard let cursor = PageCursor(encoded: text) else { throw BoardError.invalidCursor(text) }
        return cursor
    }

    /// The store's change version: any commit, by any process, moves it.
    func changeVersion() throws -> StoreVersion {
        try board.changeVersion()
    }

    /// Returns once the store may have changed since `version`, with the new version.
    func nextChange(after version: StoreVersion) async throws -> StoreVersion {
        try await board.nextChange(after: version)
    }

    /// The board's time now.
    func now() -> Timestamp {
        board.configuration.now()
    }

    /// The key post-proof challenges are signed with (made and stored on first use).
    func postProofKey() throws -> [UInt8] {
        try board.postProofKey()
    }

    /// Spends a proof's challenge; false when it was spent before.
    func spendPostProof(_ proof: PostProof) throws -> Bool {
        try board.spendPostProof(proof)
    }

    /// One poster.
    func poster(id: Int64) throws -> Poster {
        try board.poster(id: id)
    }

    /// The highest poster id ever given (deleted posters' included).
    func lastPosterID() throws -> Int64 {
        try board.lastPosterID()
    }

    /// Where the server keeps files derived from the board (preview cards), beside its blobs.
    var derivedFilesFolder: String? { board.derivedFilesFolder }

    /// A poster's timeline in buckets of `size`.
    func timeline(id: Int64, size: TimelineBucketSize) throws -> [TimelineBucket] {
        try board.timeline(poster: id, bucket: size)
    }

    /// Adds votes without waiting: `completion` runs on the vote batcher's thread once they
    /// are committed (with others cast at the same moment) or failed. Throws at once for a
    /// count out of range.
    func vote(
        id: Int64, side: VoteSide, times: Int, completion: @escaping @Sendable (Result<Poster, any Error>) -> Void
    ) throws {
        try board.castVote(id: id, side: side, times: times, completion: completion)
    }

    /// Validates, re-encodes and stores a new poster.
    func post(_ draft: PosterDraft) throws -> Poster {
        try board.post(draft)
    }

    /// Changes a poster's question, hashtags or both (in one transaction); what is not given
    /// stays as it is.
    func edit(id: Int64, contents: String?, hashtags: [String]?) throws -> Poster {
        // One transaction: what is not given is read and kept inside it.
        try board.edit(id: id, contents: contents, hashtags: hashtags)
    }

    /// Deletes a poster and the images no other poster uses.
    func delete(id: Int64) throws -> Poster {
        try board.delete(id: id)
    }

    /// Writes every poster from one snapshot (see ``Board/export(_:batch:write:progress:)``).
    func export(_ options: ExportOptions, write: ([UInt8]) throws -> Void) throws {
        try board.export(options, write: write)
    }

    /// Records a report (see ``Board/report(id:reason:note:reporter:)``).
    func report(id: Int64, reason: ReportReason, note: String, reporter: String) throws {
        try board.report(id: id, reason: reason, note: note, reporter: reporter)
    }

    /// Hidden and reported posters, the latest activity first.
    func moderationQueue() throws -> [ModerationItem] {
        try board.moderationQueue()
    }

    /// One poster as moderators see it.
    func moderationItem(id: Int64) throws -> ModerationItem {
        try board.moderationItem(id: id)
    }

    /// Hides a poster from the public, logged.
    func hide(id: Int64, actor: String, reason: String) throws -> ModerationItem {
        try board.hide(id: id, actor: actor, reason: reason)
    }

    /// Shows a poster again and clears its reports, logged.
    func restore(id: Int64, actor: String, reason: String) throws -> ModerationItem {
        try board.restore(id: id, actor: actor, reason: reason)
    }

    /// Deletes a poster and the images no other poster uses, logged.
    func remove(id: Int64, actor: String, reason: String, options: RemoveOptions) throws -> Poster {
        try board.remove(id: id, actor: actor, reason: reason, options: options)
    }

    /// The audit log, newest first.
    func auditLog(posterID: Int64?, before: Int64?, limit: Int) throws -> [AuditEntry] {
        try board.auditLog(posterID: posterID, before: before, limit: limit)
    }

    /// A live feed (every feed of the board shares one change source).
    func observe(_ feed: Feed) throws -> FeedObservation {
        try board.observe(feed)
    }

    /// A stored image and the file it is in; throws not-found for a digest no poster uses.
    func blob(_ digest: Digest) throws -> (image: StoredImage, path: String) {
        try board.blob(digest)
    }

    /// An image pipeline over the board's blobs.
    func imagePipeline(cacheLimits: CacheLimits) -> ImagePipeline {
        board.imagePipeline(cacheLimits: cacheLimits)
    }

    /// The most bytes an uploaded image may have.
    var maximumImageBytes: Int { board.configuration.limits.maxFileBytes }

    /// Throws unless the store answers.
    func checkHealth() throws -> Int {
        try board.count()
    }

    /// Throws unless the board takes writes now: the store answers and the blob folder takes
    /// a probe write.
    func checkReady() throws {
        try board.checkReady()
    }
}
