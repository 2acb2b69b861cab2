import Testing

@testable import TenbinKit

/// Observations run against real stores in virtual time: the clock moves only when a test
/// ticks it, and a tick returns once the observer is asleep again.
@Suite(.timeLimit(.minutes(10))) struct FeedObservationTests {
    let tick = Duration.milliseconds(50)

    /// A board on `store` whose live feeds wait on `clock` and report to `recorder`.
    func liveBoard(_ store: TemporaryStore, _ clock: VirtualClock, _ recorder: LiveRecorder, create: Bool = true) throws -> Board {
        try store.board(create: create, live: recorder.options(clock))
    }

    /// Starts iterating `feed` on `board` in a task that records every update.
    func start(_ feed: Feed, on board: Board, clock: VirtualClock, recorder: LiveRecorder) async throws -> Task<Void, any Error> {
        let observation = try board.observe(feed)
        let task = Task {
            for try await update in observation { recorder.record(update) }
        }
        await settle(board, clock)
        return task
    }

    /// Waits until the shared source sleeps and every observer has taken what it was given
    /// and waits for more.
    func settle(_ board: Board, _ clock: VirtualClock) async {
        await clock.untilSomeoneSleeps()
        await waitUntil("every observer to wait for more") { board.live.waitingObserverCount >= board.live.observerCount }
    }

    /// Moves the clock one poll on and waits for the board's observers to settle.
    func tick(_ board: Board, _ clock: VirtualClock) async {
        clock.advance(by: tick)
        await settle(board, clock)
    }

    @Test func theFirstUpdateIsTheWholeFeed() async throws {
        let store = try TemporaryStore()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let board = try liveBoard(store, clock, recorder)
        let posted = try (1...3).map { try board.quickPost("poster \($0)") }
        let task = try await start(Feed(order: .new, limit: 2), on: board, clock: clock, recorder: recorder)
        #expect(recorder.delivered == [.snapshot([posted[2], posted[1]])])
        task.cancel()
        try await task.value
    }

    @Test func aVoteFromAnotherConnectionArrivesAfterOnePollAsAModification() async throws {
        let store = try TemporaryStore()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let board = try liveBoard(store, clock, recorder)
        let posted = try (1...3).map { _ in try board.quickPost() }
        let task = try await start(Feed(order: .popular, limit: 10), on: board, clock: clock, recorder: recorder)
        // A second board is a second connection, as another process would have.
        let voted = try store.board().vote(id: posted[0].id, side: .second)
        await tick(board, clock)
        #expect(recorder.delivered.last == .changes([.modified(voted, oldIndex: 2, newIndex: 0)]))
        task.cancel()
        try await task.value
    }

    @Test func commitsBetweenTwoPollsArriveAsOneChangeSetFromOneRead() async throws {
        let store = try TemporaryStore()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let board = try liveBoard(store, clock, recorder)
        let first = try board.quickPost()
        let task = try await start(Feed(order: .popular, limit: 10), on: board, clock: clock, recorder: recorder)
        for _ in 0..<5 { try board.vote(id: first.id, side: .first) }
        let second = try board.quickPost("later")
        await tick(board, clock)
        let now = try board.poster(id: first.id)
        #expect(recorder.delivered.count == 2)
        #expect(recorder.delivered.last == .changes([.modified(now, oldIndex: 0, newIndex: 0), .added(second, newIndex: 1)]))
        #expect(recorder.reads == 2)
        task.cancel()
        try await task.value
    }

    @Test func pollsThatFindNoCommitDoNotReadTheFeed() async throws {
        let store = try TemporaryStore()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let board = try liveBoard(store, clock, recorder)
        try board.quickPost()
        let task = try await start(Feed(), on: board, clock: clock, recorder: recorder)
        for _ in 0..<10 { await tick(board, clock) }
        #expect(clock.sleepCalls == 11)
        #expect(recorder.reads == 1)
        #expect(recorder.delivered.count == 1)
        task.cancel()
        try await task.value
    }

    @Test func aCommitThatLeavesTheFeedAsItWasDeliversNothing() async throws {
        let store = try TemporaryStore()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let board = try liveBoard(store, clock, recorder)
        let old = try board.quickPost("old")
        try board.quickPost("new")
        let task = try await start(Feed(order: .new, limit: 1), on: board, clock: clock, recorder: recorder)
        try board.vote(id: old.id, side: .first)  // outside the feed
        await tick(board, clock)
        #expect(recorder.delivered.count == 1)
        #expect(recorder.reads == 2)
        let newest = try board.quickPost("newest")
        await tick(board, clock)
        #expect(recorder.delivered.count == 2)
        #expect(recorder.delivered.last?.changes?.map(\.poster) == [try board.poster(id: 2), newest])
        task.cancel()
        try await task.value
    }

    @Test func cancellingTheIteratingTaskStopsTheSharedSource() async throws {
        let store = try TemporaryStore()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let board = try liveBoard(store, clock, recorder)
        try board.quickPost()
        let task = try await start(Feed(), on: board, clock: clock, recorder: recorder)
        await tick(board, clock)
        task.cancel()
        try await task.value
        await waitUntil("the shared source to stop") { recorder.sourceEvents.last == .stopped }
        #expect(recorder.sourceEvents.first == .read(Feed()))
        #expect(board.live.observerCount == 0)
        #expect(clock.pendingSleepers == 0)
        let sleeps = clock.sleepCalls
        let events = recorder.sourceEvents.count
        try board.vote(id: 1, side: .first)
        for _ in 0..<5 { clock.advance(by: tick) }
        #expect(clock.sleepCalls == sleeps)
        #expect(recorder.sourceEvents.count == events)
        #expect(recorder.delivered.count == 1)
    }

    @Test func releasingAnIteratorClosesItsObserver() async throws {
        let store = try TemporaryStore()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let board = try liveBoard(store, clock, recorder)
        try board.quickPost()
        do {
            var iterator = try board.observe(Feed()).makeAsyncIterator()
            #expect(try await iterator.next()?.snapshot?.count == 1)
            #expect(recorder.sourceEvents == [.read(Feed()), .started])
            #expect(board.live.observerCount == 1)
        }
        #expect(board.live.observerCount == 0)
        await waitUntil("the shared source to stop") { recorder.sourceEvents.last == .stopped }
        #expect(clock.pendingSleepers == 0)
    }

    @Test func closingTheBoardEndsEveryObservationAndWaitsForTheSourceToStop() async throws {
        let store = try TemporaryStore()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let board = try liveBoard(store, clock, recorder)
        try board.quickPost()
        let tasks = [
            try await start(Feed(), on: board, clock: clock, recorder: recorder),
            try await start(Feed(order: .popular), on: board, clock: clock, recorder: recorder),
        ]
        await waitUntil("both observers to wait") { board.live.waitingObserverCount >= 2 }
        await board.close()
        // Returned only once the waiting task had ended.
        #expect(recorder.sourceEvents.last == .stopped)
        for task in tasks { try await task.value }  // each sequence simply ended
        #expect(board.live.observerCount == 0)
        var iterator = try board.observe(Feed()).makeAsyncIterator()
        await #expect(throws: FeedError.closed) { try await iterator.next() }
        // The store closed after the feeds: reads and writes throw; a second close does nothing more.
        #expect { try board.vote(id: 1, side: .first) } throws: { ($0 as? StoreError)?.reason == .closed }
        #expect { try board.poster(id: 1) } throws: { ($0 as? StoreError)?.reason == .closed }
        await board.close()
    }

    /// A task cancelled just before its observer's wait begins (a watch sent Ctrl-C as it
    /// printed a line) must not wait on: before the fix the cancellation found nothing to end,
    /// and the wait went on until the next change, which in virtual time never comes.
    @Test func aWaitBegunByATaskAlreadyCancelledEndsAtOnce() async throws {
        let store = try TemporaryStore()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let board = try liveBoard(store, clock, recorder)
        try board.quickPost()
        let (id, _) = try board.live.subscribe(Feed())
        let outcome = Locked<Result<FeedUpdate?, any Error>?>(nil)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                let update = try await board.live.next(Feed(), id: id)
                outcome.withLock { $0 = .success(update) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
        }
        await waitUntil("the cancelled wait to end") { outcome.withLock { $0 } != nil }
        // Ends a wait that did not (closing resumes every observer), so the test itself ends.
        await board.close()
        await task.value
        let ended = try #require(outcome.withLock { $0 })
        #expect(throws: CancellationError.self) { try ended.get() }
    }

    @Test func closingRightAfterTheLastObserverLeftWaitsForTheCancelledSourceToo() async throws {
        let store = try TemporaryStore()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let board = try liveBoard(store, clock, recorder)
        try board.quickPost()
        let task = try await start(Feed(), on: board, clock: clock, recorder: recorder)
        task.cancel()
        try await task.value
        // The last observer left: the source was cancelled but may not have ended yet.
        await board.close()
        #expect(recorder.sourceEvents.last == .stopped)
        #expect(clock.pendingSleepers == 0)
    }

    @Test func manyObserversOfOneFeedShareOneReadPerChange() async throws {
        let store = try TemporaryStore()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let board = try liveBoard(store, clock, recorder)
        let first = try board.quickPost()
        let observations = (0..<50).map { _ in LiveRecorder() }
        var tasks: [Task<Void, any Error>] = []
        for observer in observations {
            let observation = try board.observe(Feed(order: .popular))
            tasks.append(Task { for try await update in observation { observer.record(update) } })
        }
        // An observer counts from its first wait, in its own task: settling before the last
        // task has begun would settle 49 (as a run of one test at a time did).
        await waitUntil("all 50 observers to begin") { board.live.observerCount == 50 }
        await settle(board, clock)
        #expect(board.live.observerCount == 50)
        #expect(recorder.reads == 1)
        let voted = try board.vote(id: first.id, side: .first)
        await tick(board, clock)
        #expect(recorder.reads == 2)
        #expect(clock.pendingSleepers == 1)
        for observer in observations {
            #expect(observer.delivered == [.snapshot([first]), .changes([.modified(voted, oldIndex: 0, newIndex: 0)])])
        }
        for task in tasks { task.cancel() }
        for task in tasks { try await task.value }
    }

    @Test func aStoreCreatedAfterObservationStartedIsPickedUp() async throws {
        let store = try TemporaryStore()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let reading = try liveBoard(store, clock, recorder, create: false)
        let task = try await start(Feed(), on: reading, clock: clock, recorder: recorder)
        #expect(recorder.delivered == [.snapshot([])])
        await tick(reading, clock)
        let poster = try store.board().quickPost("first")
        await tick(reading, clock)
        #expect(recorder.delivered.last == .changes([.added(poster, newIndex: 0)]))
        task.cancel()
        try await task.value
    }

    @Test func anEditArrivesAsAModificationInPlace() async throws {
        let store = try TemporaryStore()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let board = try liveBoard(store, clock, recorder)
        let posters = try board.quickPost([("きのこ派", ["きのこ"]), ("海と山", [])])
        let task = try await start(Feed(order: .new), on: board, clock: clock, recorder: recorder)
        let edited = try board.edit(id: posters[0].id, contents: "たけのこ派", hashtags: ["たけのこ"])
        await tick(board, clock)
        #expect(recorder.delivered.last == .changes([.modified(edited, oldIndex: 1, newIndex: 1)]))
        task.cancel()
        try await task.value
    }

    @Test func aQueryKeepsOnlyPostersWithEveryWordInContentsOrHashtags() async throws {
        let store = try TemporaryStore()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let board = try liveBoard(store, clock, recorder)
        let cats = try board.quickPost("Cats or dogs?", hashtags: ["pets"])
        try board.quickPost("Sea or mountain?", hashtags: ["travel"])
        let task = try await start(Feed(query: "CATS\u{3000}#pets"), on: board, clock: clock, recorder: recorder)
        #expect(recorder.delivered == [.snapshot([cats])])
        let more = try board.quickPost("more cats", hashtags: ["Pets"])
        try board.quickPost("cats alone")
        await tick(board, clock)
        #expect(recorder.delivered.last == .changes([.added(more, newIndex: 0)]))
        task.cancel()
        try await task.value
    }

    @Test func aQueryMatchesAsSearchDoesIgnoringWidthAndKana() async throws {
        let store = try TemporaryStore()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let board = try liveBoard(store, clock, recorder)
        let cat = try board.quickPost("ねこ派？", hashtags: ["ＰＥＴＳ"])
        try board.quickPost("いぬ派？", hashtags: ["pets"])
        let task = try await start(Feed(query: "ﾈｺ pets"), on: board, clock: clock, recorder: recorder)
        #expect(recorder.delivered == [.snapshot([cat])])
        let kitten = try board.quickPost("子ネコ", hashtags: ["Pets"])
        await tick(board, clock)
        #expect(recorder.delivered.last == .changes([.added(kitten, newIndex: 0)]))
        task.cancel()
        try await task.value
    }

    @Test func observingRefusesALimitBelowOneAndAnIntervalOfZero() throws {
        let store = try TemporaryStore()
        let (clock, recorder) = (VirtualClock(), LiveRecorder())
        let board = try liveBoard(store, clock, recorder)
        #expect(throws: FeedError.invalidLimit(0)) { try board.observe(Feed(limit: 0)) }
        #expect(throws: FeedError.invalidInterval(.zero)) { try store.board(live: .init(interval: .zero)).observe(Feed()) }
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
        let board = try liveBoard(store, clock, recorder)
        let task = try await start(feed, on: board, clock: clock, recorder: recorder)
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
            await tick(board, clock)
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
