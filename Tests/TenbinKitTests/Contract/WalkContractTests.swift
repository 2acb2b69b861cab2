import Testing

@testable import TenbinKit

/// Walks while votes move posters: on every backend and in every order, a walk from the first
/// page to the last visits every poster that existed when it began and was not deleted or
/// hidden meanwhile exactly once, in the order its first page had (``VoteSnapshot``); a walk
/// older than the vote log keeps is refused as expired.
///
/// The limit guards against a hang, not a slow machine: the popular search walk's memory case
/// took 36 s alone in a debug build before its smallest page grew from 9 to 25, and under
/// AddressSanitizer with the whole suite on two cores it once ran past 10 minutes.
@Suite(.timeLimit(.minutes(25))) struct WalkContractTests {
    /// What happens between two pages of a walk, as a seeded random story: votes on random
    /// posters (a few, or a jump of dozens), directly or through the group commit; now and then
    /// a poster not shown yet deleted or hidden, or a new one posted.
    struct Meanwhile {
        var random: SplitMix64
        let candidates: [Int64]
        /// Deleted or hidden.
        var deleted: Set<Int64> = []
        var created: Set<Int64> = []

        mutating func happen(on board: Board, shown: Set<Int64>) async throws {
            for _ in 0..<random.next(upTo: 5) {
                let id = candidates[random.next(upTo: candidates.count)]
                guard !deleted.contains(id) else { continue }
                let times = random.next(upTo: 3) == 0 ? 20 + random.next(upTo: 60) : 1 + random.next(upTo: 3)
                let side: VoteSide = random.next(upTo: 2) == 0 ? .first : .second
                if random.next(upTo: 2) == 0 {
                    _ = try board.vote(id: id, side: side, times: times)
                } else {
                    _ = try await board.castVote(id: id, side: side, times: times)
                }
            }
            if random.next(upTo: 8) == 0,
                let id = candidates.filter({ !shown.contains($0) && !deleted.contains($0) }).randomElement(using: &random)
            {
                _ = try board.delete(id: id)
                deleted.insert(id)
            }
            if random.next(upTo: 8) == 0,
                let id = candidates.filter({ !shown.contains($0) && !deleted.contains($0) }).randomElement(using: &random)
            {
                _ = try board.hide(id: id, actor: "walk test")
                deleted.insert(id)
            }
            if random.next(upTo: 8) == 0 { created.insert(try board.quickPost("late walker").id) }
        }
    }

    /// Walks `pages` with `limit` from the first page (`start` is its order, read just before)
    /// to the last, with `seed`'s story between pages, and checks that the walk showed every
    /// poster of `start` not deleted meanwhile exactly once, in `start`'s order.
    static func checkWalk(
        start: [Int64], seed: UInt64, limit: Int, on board: Board, _ what: String, pages: (Int, PageCursor?) throws -> Page
    ) async throws {
        var meanwhile = Meanwhile(random: SplitMix64(seed: seed), candidates: start)
        let walked = try await walk(limit: limit, &meanwhile, on: board, pages: pages)
        let expected = start.filter { !meanwhile.deleted.contains($0) }
        #expect(walked.filter { !meanwhile.created.contains($0) } == expected, "\(what), limit \(limit)")
        #expect(Set(walked).count == walked.count, "\(what): a poster shown twice")
    }

    /// Walks `pages` (a page after a cursor, the first without one) to the end, `meanwhile`
    /// between pages; the ids shown, in order. Each cursor goes through its text, as a client's.
    static func walk(
        limit: Int, _ meanwhile: inout Meanwhile, on board: Board, pages: (Int, PageCursor?) throws -> Page
    ) async throws -> [Int64] {
        var walked: [Int64] = []
        var cursor: PageCursor?
        repeat {
            let page = try pages(limit, cursor)
            walked += page.posters.map(\.id)
            cursor = try page.next.map { try #require(PageCursor(encoded: $0.encoded)) }
            try await meanwhile.happen(on: board, shown: Set(walked))
        } while cursor != nil
        return walked
    }

    @Test(arguments: BackendUnderTest.all)
    func aNewestFirstWalkShowsEveryPosterOnceWhileVotesMoveThem(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let posters = try board.quickPost((0..<30).map { ("walker \($0)", $0 % 3 == 0 ? ["ab"] : []) })
        for poster in posters where poster.id % 4 == 0 { try board.vote(id: poster.id, side: .first, times: 3) }
        for seed: UInt64 in 1...4 {
            let start = try board.posters(order: .new, limit: 1000).map(\.id)
            try await Self.checkWalk(start: start, seed: seed, limit: 1 + Int(seed % 4), on: board, "new, seed \(seed)") {
                try board.page(order: .new, limit: $0, after: $1)
            }
            let matches = try board.search(query: "walker", order: .new, limit: 1000).map(\.id)
            try await Self.checkWalk(start: matches, seed: seed + 10, limit: 2 + Int(seed % 3), on: board, "search new, seed \(seed)") {
                try board.searchPage(query: "walker", order: .new, limit: $0, after: $1)
            }
            let tagged = try board.search(query: "ab", order: .new, limit: 1000).map(\.id)
            try await Self.checkWalk(start: tagged, seed: seed + 20, limit: 2, on: board, "search new ab, seed \(seed)") {
                try board.searchPage(query: "ab", order: .new, limit: $0, after: $1)
            }
        }
    }

    /// Three posters voted past the rest after a walk's first page, the first of them then
    /// deleted: the next page shows the other two where they stood at the mark, neither place
    /// lost to the deleted one (a log that still names a deleted poster, as SQLite's does).
    @Test(arguments: BackendUnderTest.all)
    func aDeletedPosterVotedForSinceTheMarkTakesNoOnesPlace(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        // Votes 60, 50, …, 10, 0: one order, no ties.
        let posters = try board.quickPost((0..<7).map { ("walker \($0)", []) }).map(\.id)
        for (index, id) in posters.enumerated() where index < 6 { try board.vote(id: id, side: .first, times: 60 - 10 * index) }
        let first = try board.page(order: .popular, limit: 2)
        #expect(first.posters.map(\.id) == Array(posters[0..<2]))
        // After the mark, the third, fourth and fifth move to the top; the third is deleted.
        for id in posters[2...4] { try board.vote(id: id, side: .first, times: 100) }
        _ = try board.delete(id: posters[2])
        let second = try board.page(order: .popular, limit: 2, after: first.next)
        #expect(second.posters.map(\.id) == [posters[3], posters[4]])
        let third = try board.page(order: .popular, limit: 2, after: second.next)
        #expect(third.posters.map(\.id) == [posters[5], posters[6]])
    }

    @Test(arguments: BackendUnderTest.all)
    func aWalkOlderThanTheVoteLogKeepsIsRefusedAsExpired(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        let clock = Locked(Int64(1_764_450_000))
        var configuration = store.configuration()
        configuration.now = { Timestamp(secondsSince1970: clock.withLock { $0 }) }
        let board = Board(configuration, store: try backend.make(store.path), blobs: BlobStore(storeFolder: store.path))
        let posters = try board.quickPost((0..<6).map { ("walker \($0)", []) }).map(\.id)
        /// `VoteSnapshot.pruneEvery` batches: one of them prunes the log.
        func voteAWhile() throws {
            for index in 0..<Int(VoteSnapshot.pruneEvery) { try board.vote(id: posters[index % posters.count], side: .first) }
        }
        let old = try #require(try board.page(order: .popular, limit: 2).next)
        let oldSearch = try #require(try board.searchPage(query: "walker", order: .popular, limit: 2).next)
        clock.withLock { $0 += VoteSnapshot.retention / 2 }
        try voteAWhile()
        // Half the retention on: the walk goes on, ranked as it began.
        #expect(try board.page(order: .popular, limit: 2, after: old).posters.count == 2)
        let recent = try #require(try board.page(order: .popular, limit: 2).next)
        clock.withLock { $0 += VoteSnapshot.retention }
        try voteAWhile()
        // The batches the old walk ranked by are pruned: refused, naming what to do.
        #expect(throws: BoardError.cursorExpired(old.encoded)) { try board.page(order: .popular, limit: 2, after: old) }
        #expect(throws: BoardError.cursorExpired(oldSearch.encoded)) {
            try board.searchPage(query: "walker", order: .popular, limit: 2, after: oldSearch)
        }
        #expect("\(BoardError.cursorExpired(old.encoded))".contains("start from the first page"))
        // A walk begun after the batches pruned goes on; a new walk starts as ever.
        var page = try board.page(order: .popular, limit: 2)
        var walked = page.posters.map(\.id)
        while let next = page.next {
            page = try board.page(order: .popular, limit: 2, after: next)
            walked += page.posters.map(\.id)
        }
        #expect(walked.sorted() == posters)
        #expect(try board.page(order: .popular, limit: 2, after: recent).posters.count == 2)
        // A mark the log never reached is not expired but bad.
        let tampered = try #require(PageCursor(encoded: "p0-1-\(Int64.max)"))
        #expect(throws: BoardError.invalidCursor(tampered.encoded)) { try board.page(order: .popular, limit: 2, after: tampered) }
    }

    @Test(arguments: BackendUnderTest.all)
    func aPopularWalkShowsEveryPosterOnceInItsFirstPagesOrderWhileVotesMoveThem(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let posters = try board.quickPost((0..<40).map { ("walker \($0)", []) })
        var random = SplitMix64(seed: 30)
        for poster in posters where random.next(upTo: 2) == 0 {
            try board.vote(id: poster.id, side: .first, times: 1 + random.next(upTo: 5))
        }
        // Trending's score moves with votes as popular's total does; its walks keep their first
        // page's order the same way.
        for order in [FeedOrder.popular, .trending] {
            for seed: UInt64 in 1...8 {
                let start = try board.posters(order: order, limit: 1000).map(\.id)
                try await Self.checkWalk(start: start, seed: seed, limit: 1 + Int(seed % 6), on: board, "\(order) seed \(seed)") {
                    try board.page(order: order, limit: $0, after: $1)
                }
            }
        }
    }

    @Test(arguments: BackendUnderTest.all)
    func aPopularSearchWalkShowsEveryMatchOnceWhileVotesMoveThem(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        // More matches of "walker" than popular search ranks whole, so it walks the posters by
        // votes; "ab" (two characters: the index answers it exactly) and "rare" match few. Each
        // page of the "walker" walks first counts 2,001 candidates to learn that matches are
        // many: by 9 (229 pages an order) the test took 300 s of CPU under AddressSanitizer; by
        // 25 it is 83 pages, each with votes and deletions between.
        let count = Board.popularCandidateLimit + 60
        let posters = try board.quickPost(
            (0..<count).map { ("walker \($0)" + ($0 % 97 == 0 ? " rare" : ""), $0 % 5 == 0 ? ["ab"] : []) })
        var random = SplitMix64(seed: 31)
        for poster in posters where random.next(upTo: 3) == 0 {
            try board.vote(id: poster.id, side: .second, times: 1 + random.next(upTo: 5))
        }
        for (seed, query, limit) in [
            (UInt64(1), "walker", 150), (2, "ab", 40), (3, "rare", 2), (4, "ab", 7), (5, "rare", 5), (6, "walker", 25),
        ] {
            for order in [FeedOrder.popular, .trending] {
                let start = try board.search(query: query, order: order, limit: 10_000).map(\.id)
                // The votes fall on the matches, most of them below the walk's first page.
                try await Self.checkWalk(start: start, seed: seed, limit: limit, on: board, "\(order) \(query)") {
                    try board.searchPage(query: query, order: order, limit: $0, after: $1)
                }
            }
        }
    }

    @Test(arguments: BackendUnderTest.all)
    func aPopularWalkShowsEveryPosterOnceWhileOtherTasksVoteAllAlong(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let posters = try board.quickPost((0..<60).map { ("walker \($0)", []) }).map(\.id)
        let walking = Locked(true)
        let cast = Locked(0)
        // Voters that never wait for the walk: votes land between a page's reads, not only
        // between pages.
        let voters = (0..<2).map { voter in
            Task.detached {
                var random = SplitMix64(seed: 40 + UInt64(voter))
                while walking.withLock({ $0 }) {
                    let id = posters[random.next(upTo: posters.count)]
                    let times = random.next(upTo: 4) == 0 ? 30 : 1
                    if voter == 0 {
                        _ = try board.vote(id: id, side: .first, times: times)
                    } else {
                        _ = try await board.castVote(id: id, side: .second, times: times)
                    }
                    cast.withLock { $0 += 1 }
                    // A direct vote never suspends: let the walk's task have the thread too.
                    await Task.yield()
                }
            }
        }
        defer { walking.withLock { $0 = false } }
        for round in 0..<4 {
            var walked: [Int64] = []
            var cursor: PageCursor?
            let order: FeedOrder = round % 2 == 0 ? .popular : .trending
            repeat {
                let page = try board.page(order: order, limit: 3 + round, after: cursor)
                walked += page.posters.map(\.id)
                cursor = page.next
                // Votes must land between pages: wait (boundedly) for the voters to cast some.
                let seen = cast.withLock { $0 }
                let deadline = ContinuousClock.now + .seconds(10)
                while cast.withLock({ $0 }) < seen + 4 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
            } while cursor != nil
            #expect(walked.sorted() == posters, "round \(round), \(order): every poster exactly once")
        }
        walking.withLock { $0 = false }
        for voter in voters { try await voter.value }
    }
}
