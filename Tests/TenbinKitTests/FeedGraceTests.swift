import Testing

@testable import TenbinKit

/// Live feeds across a store that stops answering (a database restarting), in virtual time:
/// within the grace the feeds stay open and then deliver one diff; past it they end with the
/// store's `unavailable` error.
@Suite(.timeLimit(.minutes(10))) struct FeedGraceTests {
    /// A board on a memory store whose feeds poll `clock` and outlast an outage for `grace`.
    static func board(_ store: MemoryStore, _ folder: TemporaryStore, clock: VirtualClock, recorder: LiveRecorder, grace: Duration)
        -> Board
    {
        var live = recorder.options(clock)
        live.grace = grace
        return Board(folder.configuration(live: live), store: store, blobs: BlobStore(storeFolder: folder.path))
    }

    /// Iterates `feed` in a task recording its updates, and the kind of the error it ended
    /// with, if any.
    static func observe(_ feed: Feed, on board: Board, recorder: LiveRecorder, ended: Locked<ErrorKind?>) throws -> Task<Void, Never> {
        let observation = try board.observe(feed)
        return Task {
            do {
                for try await update in observation { recorder.record(update) }
            } catch {
                ended.withLock { $0 = ErrorKind.of(error) }
            }
        }
    }

    /// Moves the clock on by `step` and waits until the source sleeps again and every observer
    /// took what it was given, or the feed ended.
    static func step(_ clock: VirtualClock, _ step: Duration, _ board: Board, ended: Locked<ErrorKind?>) async {
        clock.advance(by: step)
        await waitUntil("the source to sleep again or the feed to end") {
            (clock.pendingSleepers > 0 && board.live.waitingObserverCount == board.live.observerCount) || ended.withLock { $0 } != nil
        }
    }

    /// What stops answering: the reads alone (the change source saw a commit, then the re-read
    /// failed half way), or the change source too.
    enum Outage: CaseIterable {
        case reads, readsAndChanges
    }

    @Test(arguments: Outage.allCases)
    func aFeedOutlastsAnOutageWithinTheGraceThenDeliversOneDiffToTheCurrentCounts(_ outage: Outage) async throws {
        let (store, folder, clock, recorder) = (MemoryStore(), try TemporaryStore(), VirtualClock(), LiveRecorder())
        let board = Self.board(store, folder, clock: clock, recorder: recorder, grace: .seconds(10))
        let posted = try (1...2).map { try board.quickPost("poster \($0)") }
        let ended = Locked<ErrorKind?>(nil)
        let task = try Self.observe(Feed(order: .popular, limit: 10), on: board, recorder: recorder, ended: ended)
        await waitUntil("the snapshot and a waiting observer") { recorder.delivered.count == 1 && board.live.waitingObserverCount == 1 }
        await clock.untilSomeoneSleeps()

        // The store stops answering this process; another one votes meanwhile.
        store.unavailable.withLock { $0 = true }
        store.changesUnavailable.withLock { $0 = outage == .readsAndChanges }
        for _ in 0..<3 { _ = try board.vote(id: posted[0].id, side: .first) }
        var waited = Duration.zero
        while waited < .seconds(9) {
            await Self.step(clock, .milliseconds(500), board, ended: ended)
            waited += .milliseconds(500)
        }
        #expect(ended.withLock { $0 } == nil, "the feed ended within the grace")
        #expect(board.live.observerCount == 1)
        #expect(recorder.delivered.count == 1)
        #expect(recorder.sourceEvents.filter { $0 == .unavailable }.count >= 9, "the source kept trying, pausing a second at most")

        // Back: one diff from what the feed delivered to what is there now.
        store.unavailable.withLock { $0 = false }
        store.changesUnavailable.withLock { $0 = false }
        // The next try comes within a second (the longest pause).
        for _ in 0..<2 where recorder.delivered.count == 1 { await Self.step(clock, .milliseconds(500), board, ended: ended) }
        #expect(recorder.delivered.count == 2)
        let now = try board.poster(id: posted[0].id)
        #expect(now.good1 == 3)
        #expect(recorder.delivered.last == .changes([.modified(now, oldIndex: 1, newIndex: 0)]))

        // And the feed goes on as before.
        let again = try board.vote(id: posted[1].id, side: .second, times: 5)
        await Self.step(clock, .milliseconds(50), board, ended: ended)
        #expect(recorder.delivered.count == 3)
        #expect(recorder.delivered.last == .changes([.modified(again, oldIndex: 1, newIndex: 0)]))
        #expect(ended.withLock { $0 } == nil)
        task.cancel()
        await task.value
    }

    @Test func pastTheGraceTheFeedEndsWithTheUnavailableError() async throws {
        let (store, folder, clock, recorder) = (MemoryStore(), try TemporaryStore(), VirtualClock(), LiveRecorder())
        let board = Self.board(store, folder, clock: clock, recorder: recorder, grace: .seconds(3))
        try board.quickPost("watched")
        let ended = Locked<ErrorKind?>(nil)
        let task = try Self.observe(Feed(order: .new, limit: 5), on: board, recorder: recorder, ended: ended)
        await waitUntil("the snapshot and a waiting observer") { recorder.delivered.count == 1 && board.live.waitingObserverCount == 1 }
        await clock.untilSomeoneSleeps()

        store.unavailable.withLock { $0 = true }
        store.changesUnavailable.withLock { $0 = true }
        // The first poll after this step fails; the grace counts from there.
        await Self.step(clock, .milliseconds(50), board, ended: ended)
        var waited = Duration.zero
        while ended.withLock({ $0 }) == nil && waited < .seconds(60) {
            await Self.step(clock, .milliseconds(250), board, ended: ended)
            waited += .milliseconds(250)
        }
        await task.value
        #expect(ended.withLock { $0 } == .unavailable)
        #expect(waited >= .seconds(3), "ended after \(waited), within the grace")
        #expect(waited <= .seconds(4), "ended after \(waited), well past the grace")
        #expect(recorder.delivered.count == 1)
        #expect(board.live.observerCount == 0)
    }

    @Test func aStoreFailureOfAnotherKindEndsTheFeedAtOnceWhateverTheGrace() async throws {
        let (folder, clock, recorder) = (try TemporaryStore(), VirtualClock(), LiveRecorder())
        let store = BrokenChanges(store: MemoryStore())
        var live = recorder.options(clock)
        live.grace = .seconds(30)
        let board = Board(folder.configuration(live: live), store: store, blobs: BlobStore(storeFolder: folder.path))
        let ended = Locked<ErrorKind?>(nil)
        let task = try Self.observe(Feed(order: .new, limit: 5), on: board, recorder: recorder, ended: ended)
        await waitUntil("the snapshot and a waiting observer") { recorder.delivered.count == 1 && board.live.waitingObserverCount == 1 }
        await clock.untilSomeoneSleeps()
        store.broken.withLock { $0 = true }
        await Self.step(clock, .milliseconds(50), board, ended: ended)
        await task.value
        #expect(ended.withLock { $0 } == .internal)
        #expect(!recorder.sourceEvents.contains(.unavailable))
    }
}

/// A memory store whose change source fails with an internal error once `broken` is set.
final class BrokenChanges: StoreBackend {
    let store: MemoryStore
    let broken = Locked(false)

    init(store: MemoryStore) { self.store = store }

    var location: String { store.location }
    func read<T>(_ body: (any StoreReading) throws -> T) throws -> T { try store.read(body) }
    func readSingle<T>(_ body: (any StoreReading) throws -> T) throws -> T { try store.readSingle(body) }
    func commitVotes(_ deltas: [VoteDelta], at time: Timestamp) throws -> [Poster] { try store.commitVotes(deltas, at: time) }
    func write<T>(_ body: (any StoreWriting) throws -> T) throws -> T { try store.write(body) }
    func integrityProblems() throws -> [String] { try store.integrityProblems() }
    func close() { store.close() }
    var changes: any ChangeSource { Source(owner: self) }

    struct Source: ChangeSource {
        let owner: BrokenChanges

        func currentVersion() throws -> StoreVersion {
            if owner.broken.withLock({ $0 }) { throw MemoryStoreError("the change source broke") }
            return try owner.store.changes.currentVersion()
        }

        func nextChange(after version: StoreVersion, interval: Duration, clock: any Clock<Duration>) async throws -> StoreVersion {
            try await clock.sleep(for: interval)
            if owner.broken.withLock({ $0 }) { throw MemoryStoreError("the change source broke") }
            return try await owner.store.changes.nextChange(after: version, interval: interval, clock: clock)
        }
    }
}
