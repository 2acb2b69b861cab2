import Testing

@testable import TenbinKit

/// Observations run against real stores in virtual time: the clock moves only when a test
/// ticks it, and a tick returns once the observer is asleep again.
@Suite(.timeLimit(.minutes(1))) struct FeedObservationTests {
    let tick = Duration.milliseconds(50)

    /// Starts iterating `feed` on `board` in a task that records every update.
    func start(_ feed: Feed, on board: Board, clock: VirtualClock, recorder: LiveRecorder) async throws -> Task<Void, any Error> {
        let observation = try board.observe(feed, options: recorder.options(clock))
        let task = Task {
            for try await update in observation { recorder.record(update) }
        }
        await clock.untilSomeoneSleeps()
        return task
    }

    @Test func theFirstUpdateIsTheWholeFeed() async throws {
        let store = try TemporaryStore()
        let board = try store.board()
        let posted = try (1...3).map { try board.quickPost("poster \($0)") }
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let task = try await start(Feed(order: .new, limit: 2), on: board, clock: clock, recorder: recorder)
        #expect(recorder.delivered == [.snapshot([posted[2], posted[1]])])
        task.cancel()
        try await task.value
    }

    @Test func aVoteFromAnotherConnectionArrivesAfterOnePollAsAModification() async throws {
        let store = try TemporaryStore()
        let board = try store.board()
        let posted = try (1...3).map { _ in try board.quickPost() }
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let task = try await start(Feed(order: .popular, limit: 10), on: board, clock: clock, recorder: recorder)
        // A second board is a second connection, as another process would have.
        let voted = try store.board().vote(id: posted[0].id, side: .second)
        await clock.tick(tick)
        #expect(recorder.delivered.last == .changes([.modified(voted, oldIndex: 2, newIndex: 0)]))
        task.cancel()
        try await task.value
    }

    @Test func commitsBetweenTwoPollsArriveAsOneChangeSetFromOneRead() async throws {
        let store = try TemporaryStore()
        let board = try store.board()
        let first = try board.quickPost()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let task = try await start(Feed(order: .popular, limit: 10), on: board, clock: clock, recorder: recorder)
        for _ in 0..<5 { try board.vote(id: first.id, side: .first) }
        let second = try board.quickPost("later")
        await clock.tick(tick)
        let now = try board.poster(id: first.id)
        #expect(recorder.delivered.count == 2)
        #expect(recorder.delivered.last == .changes([.modified(now, oldIndex: 0, newIndex: 0), .added(second, newIndex: 1)]))
        #expect(recorder.count(.read) == 2)
        task.cancel()
        try await task.value
    }

    @Test func pollsThatFindNoCommitDoNotReadTheFeed() async throws {
        let store = try TemporaryStore()
        let board = try store.board()
        try board.quickPost()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let task = try await start(Feed(), on: board, clock: clock, recorder: recorder)
        for _ in 0..<10 { await clock.tick(tick) }
        #expect(recorder.count(.polled) == 10)
        #expect(recorder.count(.read) == 1)
        #expect(recorder.delivered.count == 1)
        task.cancel()
        try await task.value
    }

    @Test func aCommitThatLeavesTheFeedAsItWasDeliversNothing() async throws {
        let store = try TemporaryStore()
        let board = try store.board()
        let old = try board.quickPost("old")
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        try board.quickPost("new")
        let task = try await start(Feed(order: .new, limit: 1), on: board, clock: clock, recorder: recorder)
        try board.vote(id: old.id, side: .first)  // outside the feed
        await clock.tick(tick)
        #expect(recorder.delivered.count == 1)
        #expect(recorder.count(.read) == 2)
        let newest = try board.quickPost("newest")
        await clock.tick(tick)
        #expect(recorder.delivered.count == 2)
        #expect(recorder.delivered.last?.changes?.map(\.poster) == [try board.poster(id: 2), newest])
        task.cancel()
        try await task.value
    }

    @Test func cancellingTheIteratingTaskStopsPollingAndClosesTheConnection() async throws {
        let store = try TemporaryStore()
        let board = try store.board()
        try board.quickPost()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let task = try await start(Feed(), on: board, clock: clock, recorder: recorder)
        await clock.tick(tick)
        task.cancel()
        try await task.value
        #expect(recorder.readerEvents.first == .opened)
        #expect(recorder.readerEvents.last == .closed)
        #expect(clock.pendingSleepers == 0)
        let sleeps = clock.sleepCalls
        let events = recorder.readerEvents.count
        try board.vote(id: 1, side: .first)
        for _ in 0..<5 { clock.advance(by: tick) }
        #expect(clock.sleepCalls == sleeps)
        #expect(recorder.readerEvents.count == events)
        #expect(recorder.delivered.count == 1)
    }

    @Test func releasingAnIteratorClosesItsConnection() async throws {
        let store = try TemporaryStore()
        let board = try store.board()
        try board.quickPost()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        do {
            var iterator = try board.observe(Feed(), options: recorder.options(clock)).makeAsyncIterator()
            #expect(try await iterator.next()?.snapshot?.count == 1)
            #expect(recorder.readerEvents == [.opened, .read])
        }
        #expect(recorder.readerEvents == [.opened, .read, .closed])
        #expect(clock.sleepCalls == 0)
    }

    @Test func aStoreCreatedAfterObservationStartedIsPickedUp() async throws {
        let store = try TemporaryStore()
        let reading = try store.board(create: false)
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let task = try await start(Feed(), on: reading, clock: clock, recorder: recorder)
        #expect(recorder.delivered == [.snapshot([])])
        await clock.tick(tick)
        let poster = try store.board().quickPost("first")
        await clock.tick(tick)
        #expect(recorder.delivered.last == .changes([.added(poster, newIndex: 0)]))
        task.cancel()
        try await task.value
    }

    @Test func aQueryKeepsOnlyPostersWithEveryWordInContentsOrHashtags() async throws {
        let store = try TemporaryStore()
        let board = try store.board()
        let cats = try board.quickPost("Cats or dogs?", hashtags: ["pets"])
        try board.quickPost("Sea or mountain?", hashtags: ["travel"])
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let task = try await start(Feed(query: "CATS\u{3000}#pets"), on: board, clock: clock, recorder: recorder)
        #expect(recorder.delivered == [.snapshot([cats])])
        let more = try board.quickPost("more cats", hashtags: ["Pets"])
        try board.quickPost("cats alone")
        await clock.tick(tick)
        #expect(recorder.delivered.last == .changes([.added(more, newIndex: 0)]))
        task.cancel()
        try await task.value
    }

    @Test func aQueryMatchesAsSearchDoesIgnoringWidthAndKana() async throws {
        let store = try TemporaryStore()
        let board = try store.board()
        let cat = try board.quickPost("ねこ派？", hashtags: ["ＰＥＴＳ"])
        try board.quickPost("いぬ派？", hashtags: ["pets"])
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let task = try await start(Feed(query: "ﾈｺ pets"), on: board, clock: clock, recorder: recorder)
        #expect(recorder.delivered == [.snapshot([cat])])
        let kitten = try board.quickPost("子ネコ", hashtags: ["Pets"])
        await clock.tick(tick)
        #expect(recorder.delivered.last == .changes([.added(kitten, newIndex: 0)]))
        task.cancel()
        try await task.value
    }

    @Test func observingRefusesALimitBelowOneAndAnIntervalOfZero() throws {
        let store = try TemporaryStore()
        let board = try store.board()
        #expect(throws: FeedError.invalidLimit(0)) { try board.observe(Feed(limit: 0)) }
        #expect(throws: FeedError.invalidInterval(.zero)) { try board.observe(Feed(), options: .init(interval: .zero)) }
    }

    /// Random posts, votes and deletes from another connection, several per poll: replaying
    /// every delivered change set on the first snapshot always gives the board's feed.
    @Test(arguments: [FeedOrder.new, .popular])
    func replayingEveryUpdateRebuildsTheFeedAfterRandomPostsVotesAndDeletes(order: FeedOrder) async throws {
        let store = try TemporaryStore()
        let writer = try store.board()
        for _ in 0..<6 { try writer.quickPost() }
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let feed = Feed(order: order, limit: 5)
        let task = try await start(feed, on: try store.board(), clock: clock, recorder: recorder)
        let seed: UInt64 = order == .new ? 1 : 2
        var random = SplitMix64(seed: seed)
        var replayed = try #require(recorder.delivered.first?.snapshot)
        for step in 0..<80 {
            let before = recorder.delivered.count
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let ids = try writer.posters(order: .new, limit: 1000).map(\.id)
                let roll = Int.random(in: 0..<10, using: &random)
                if ids.isEmpty || roll < 3 {
                    try writer.quickPost("step \(step)")
                } else if roll < 8 {
                    try writer.vote(id: ids.randomElement(using: &random)!, side: .first, times: Int.random(in: 1...4, using: &random))
                } else {
                    try writer.delete(id: ids.randomElement(using: &random)!)
                }
            }
            await clock.tick(tick)
            for update in recorder.delivered[before...] {
                replayed = try FeedDiff.apply(try #require(update.changes), to: replayed)
            }
            #expect(replayed == (try writer.posters(order: order, limit: feed.limit)), "step \(step) (seed \(seed))")
        }
        task.cancel()
        try await task.value
    }
}

extension FeedUpdate {
    var snapshot: [Poster]? {
        if case .snapshot(let posters) = self { posters } else { nil }
    }

    var changes: [FeedChange]? {
        if case .changes(let changes) = self { changes } else { nil }
    }
}
