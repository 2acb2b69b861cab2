import Foundation
import Testing

@testable import TenbinKit

/// Trending order on every backend: votes weigh less as they age (a 24-hour half-life), the
/// score is written with the counts, pages and searches follow it with cursors, and posters
/// without votes come last, newest first.
@Suite(.timeLimit(.minutes(10))) struct TrendingContractTests {
    /// 2025-11-29T21:00:00Z, a whole minute.
    static let start: Int64 = 1_764_450_000

    /// Posters a (10 votes at the start), b (3 votes two days later: 12 of a's weight at that
    /// time against a's 2.5), c (1 vote two days later) and d (none), on a board whose clock
    /// the test moves.
    static func votedBoard(_ backend: BackendUnderTest, _ store: TemporaryStore) async throws -> (Board, [Poster]) {
        let clock = Locked(Self.start)
        var configuration = store.configuration()
        configuration.now = { Timestamp(secondsSince1970: clock.withLock { $0 }) }
        let board = Board(configuration, store: try backend.make(store.path), blobs: BlobStore(storeFolder: store.path))
        let posters = try board.quickPost([("poster a", []), ("poster b", []), ("poster c", []), ("poster d", [])])
        try board.vote(id: posters[0].id, side: .first, times: 6)
        _ = try await board.castVote(id: posters[0].id, side: .second, times: 4)
        clock.withLock { $0 = Self.start + 2 * Trending.halfLife }
        try board.vote(id: posters[1].id, side: .second, times: 3)
        _ = try await board.castVote(id: posters[2].id, side: .first)
        return (board, posters)
    }

    @Test(arguments: BackendUnderTest.all)
    func recentVotesOutrankMoreButOlderOnesAndUnvotedPostersComeLastNewestFirst(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        let (board, posters) = try await Self.votedBoard(backend, store)
        defer { board.close() }
        let ids = posters.map(\.id)
        #expect(try board.posters(order: .trending, limit: 10).map(\.id) == [ids[1], ids[0], ids[2], ids[3]])
        #expect(try board.posters(order: .popular, limit: 10).map(\.id) == [ids[0], ids[1], ids[2], ids[3]])
        #expect(try board.posters(order: .trending, limit: 2, offset: 2).map(\.id) == [ids[2], ids[3]])
        let unvoted = try #require(try board.posters(order: .trending, limit: 10).last)
        #expect(unvoted.trendingScore == 0)
    }

    @Test(arguments: BackendUnderTest.all)
    func theStoredScoreIsTheLogOfItsTimelinesDecayedSum(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        let (board, posters) = try await Self.votedBoard(backend, store)
        defer { board.close() }
        for poster in try board.posters(order: .trending, limit: 10) {
            let buckets = try board.timeline(poster: poster.id, bucket: .minute).map { ($0.start, $0.good1 + $0.good2) }
            let expected = Trending.score(of: buckets.map { (start: $0.0, votes: $0.1) })
            // The backends' logarithms may differ from Swift's in the last bit.
            #expect(abs(poster.trendingScore - expected) <= 1, "poster \(poster.id): \(poster.trendingScore) against \(expected)")
        }
        // Two days later, b's 3 votes weigh 12 of a's: log2(12 / 10) half-lives apart.
        let a = try board.poster(id: posters[0].id).trendingScore
        let b = try board.poster(id: posters[1].id).trendingScore
        #expect(abs(Double(b - a) / Trending.unitsPerHalfLife - log2(1.2)) < 1e-6)
    }

    @Test(arguments: BackendUnderTest.all)
    func cursorsWalkTrendingOrderAndSearchFollowsIt(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        let (board, posters) = try await Self.votedBoard(backend, store)
        defer { board.close() }
        let all = try board.posters(order: .trending, limit: 10).map(\.id)
        var walked: [Int64] = []
        var cursor: PageCursor?
        repeat {
            let page = try board.page(order: .trending, limit: 1, after: cursor)
            walked += page.posters.map(\.id)
            cursor = try page.next.map { try #require(PageCursor(encoded: $0.encoded)) }
            if let cursor { #expect(cursor.encoded.hasPrefix("t")) }
        } while cursor != nil && walked.count <= all.count
        #expect(walked == all)
        let trendingCursor = try board.page(order: .trending, limit: 1).next
        #expect(throws: BoardError.self) { try board.page(order: .popular, limit: 1, after: trendingCursor) }
        #expect(try board.search(query: "poster", order: .trending, limit: 10).map(\.id) == all)
        #expect(try board.search(query: "b", order: .trending, limit: 10).map(\.id) == [posters[1].id])
        var searched: [Int64] = []
        cursor = nil
        repeat {
            let page = try board.searchPage(query: "poster", order: .trending, limit: 3, after: cursor)
            searched += page.posters.map(\.id)
            cursor = page.next
        } while cursor != nil && searched.count <= all.count
        #expect(searched == all)
    }
}
