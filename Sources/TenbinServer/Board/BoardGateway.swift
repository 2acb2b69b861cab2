import Dispatch
import TenbinKit

/// Every call the server makes into its board, in one place, so a change in the board's API
/// is a change here only.
struct BoardGateway: Sendable {
    let board: Board
    /// Blocking board work runs here, never on libmicrohttpd's threads or the cooperative pool.
    private let queue = DispatchQueue(label: "tenbin.serve.board", attributes: .concurrent)

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

    /// A page of search results, after `cursor` or from the top; searched off the caller's
    /// thread, since a search can take longer than a page read.
    func search(query: String, order: FeedOrder, limit: Int, cursor: String?) async throws -> Page {
        let after = try Self.cursor(cursor)
        let page = try await blocking { [board] in try board.searchPage(query: query, order: order, limit: limit, after: after) }
        return Page(posters: page.posters, next: page.next?.encoded)
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

    /// One poster.
    func poster(id: Int64) throws -> Poster {
        try board.poster(id: id)
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
    func post(_ draft: PosterDraft) async throws -> Poster {
        try await blocking { [board] in try board.post(draft) }
    }

    /// Changes a poster's question, hashtags or both (in one transaction); what is not given
    /// stays as it is.
    func edit(id: Int64, contents: String?, hashtags: [String]?) async throws -> Poster {
        // One transaction: what is not given is read and kept inside it.
        try await blocking { [board] in try board.edit(id: id, contents: contents, hashtags: hashtags) }
    }

    /// Deletes a poster and the images no other poster uses.
    func delete(id: Int64) async throws -> Poster {
        try await blocking { [board] in try board.delete(id: id) }
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
    func checkHealth() async throws -> Int {
        try await blocking { [board] in try board.count() }
    }

    /// Runs blocking `work` on the board queue and waits for it without blocking a thread.
    private func blocking<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
