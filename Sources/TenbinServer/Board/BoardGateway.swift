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
        let offset = try Self.offset(cursor)
        // One poster more than asked tells whether another page follows.
        let posters = try board.posters(order: order, limit: limit + 1, offset: offset)
        return Self.page(posters, limit: limit, offset: offset)
    }

    /// A page of search results, after `cursor` or from the top.
    func search(query: String, order: FeedOrder, limit: Int, cursor: String?) async throws -> Page {
        let offset = try Self.offset(cursor)
        let posters = try await blocking { [board] in try board.search(query: query, order: order, limit: limit + 1, offset: offset) }
        return Self.page(posters, limit: limit, offset: offset)
    }

    private static func page(_ posters: [Poster], limit: Int, offset: Int) -> Page {
        Page(posters: Array(posters.prefix(limit)), next: posters.count > limit ? "o\(offset + limit)" : nil)
    }

    /// The offset a cursor stands for: `o` and a number, as `page` makes them.
    private static func offset(_ cursor: String?) throws -> Int {
        guard let cursor else { return 0 }
        guard cursor.hasPrefix("o"), cursor.count <= 10, let offset = Int(cursor.dropFirst()), offset >= 0,
            cursor.dropFirst().allSatisfy(\.isASCII)
        else { throw APIError.badRequest("the cursor is not one this server gave out") }
        return offset
    }

    /// One poster.
    func poster(id: Int64) throws -> Poster {
        try board.poster(id: id)
    }

    /// Adds votes; returns once they are committed.
    func vote(id: Int64, side: VoteSide, times: Int) async throws -> Poster {
        try await blocking { try board.vote(id: id, side: side, times: times) }
    }

    /// Validates, re-encodes and stores a new poster.
    func post(_ draft: PosterDraft) async throws -> Poster {
        try await blocking { try board.post(draft) }
    }

    /// Changes a poster's question and hashtags.
    func edit(id: Int64, contents: String?, hashtags: [String]?) async throws -> Poster {
        throw APIError(status: 501, kind: "unavailable", message: "editing posters over HTTP is not available in this version")
    }

    /// Deletes a poster and the images no other poster uses.
    func delete(id: Int64) async throws -> Poster {
        try await blocking { try board.delete(id: id) }
    }

    /// A live feed.
    func observe(_ feed: Feed) throws -> FeedObservation {
        try board.observe(feed)
    }

    /// The file a blob is stored in.
    func blobPath(_ digest: Digest) -> String {
        BlobStore(root: "\(board.configuration.storePath)/blobs").path(for: digest)
    }

    /// An image pipeline over the board's blobs.
    func imagePipeline(cacheLimits: CacheLimits) -> ImagePipeline {
        board.imagePipeline(cacheLimits: cacheLimits)
    }

    /// Throws unless the store answers.
    func checkHealth() async throws -> Int {
        try await blocking { try board.count() }
    }

    /// Runs blocking `work` on the board queue and waits for it without blocking a thread.
    private func blocking<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
