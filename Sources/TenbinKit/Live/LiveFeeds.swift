import Dispatch

/// The one live-feed source of a board: however many feeds are observed, one task waits on
/// the store's ``ChangeSource`` and, after each change, each distinct feed is re-read once
/// and its diff handed to every observer of that feed. A server with a thousand open feeds
/// of the board's front page costs what one costs.
///
/// ``close()`` ends every observer and waits for the task: after it the source holds the
/// store no more, so a process that lets go of its board closes the store before it exits.
public final class LiveFeeds: Sendable {
    /// How the source waits for changes.
    public struct Options: Sendable {
        /// How often the change source looks for commits nobody told it of (a polling
        /// backend finds every commit this way).
        public var interval: Duration
        /// The least time between two re-reads of the feeds: a change after a quiet spell is
        /// read at once, and under a stream of commits the feeds are re-read (and their
        /// events sent) at most once per `spacing`.
        public var spacing: Duration
        /// The clock polling sleeps on (tests pass a virtual one).
        public var clock: any Clock<Duration>
        /// Told of each step, for tests and benchmarks.
        public var monitor: (@Sendable (Event) -> Void)?
        /// How long feeds outlast a store that fails as `unavailable` (a database restarting):
        /// meanwhile the source tries again after a short pause, and once the store answers
        /// every feed is re-read and its observers get one diff. A store still failing after
        /// `grace` (on `clock`) ends every observer with its error.
        public var grace: Duration

        /// Options looking for commits every `interval` of `clock`, re-reading the feeds at
        /// most once per `spacing`, outlasting an unavailable store for `grace`.
        public init(
            interval: Duration = .milliseconds(50), spacing: Duration = .milliseconds(50),
            clock: any Clock<Duration> = ContinuousClock(), monitor: (@Sendable (Event) -> Void)? = nil,
            grace: Duration = .seconds(30)
        ) {
            self.interval = interval
            self.spacing = spacing
            self.clock = clock
            self.monitor = monitor
            self.grace = grace
        }
    }

    /// A step of the source, as a monitor sees it.
    public enum Event: Sendable, Equatable {
        /// The waiting task started (the first observer arrived).
        case started
        /// The change source answered that the store may have changed.
        case changed
        /// A feed was read from the store.
        case read(Feed)
        /// The waiting task stopped (the last observer left).
        case stopped
        /// The store failed as `unavailable`; the source tries again (within the grace).
        case unavailable
    }

    /// One observer: what it was last given, and its pending `next()` call, if any.
    ///
    /// A class, touched only under `state`'s lock: an observer's fields change on every event,
    /// and with a struct each change wrote its group's dictionary of observers, which a copy
    /// of the group still shared, so every observer of a feed copied the whole dictionary once
    /// per event — a thousand feeds of one page cost a million copied entries per vote (about
    /// 100 µs of server CPU per feed per event; docs/benchmarks.md).
    private final class Observer: @unchecked Sendable {
        var delivered: [Poster]
        /// The group generation `delivered` belongs to.
        var generation: Int
        var waiting: CheckedContinuation<FeedUpdate?, any Error>?

        init(delivered: [Poster], generation: Int) {
            self.delivered = delivered
            self.generation = generation
        }
    }

    /// The observers of one feed and the feed as last read.
    private struct Group {
        var snapshot: [Poster]
        /// Counts the reads that changed `snapshot`.
        var generation = 0
        /// The changes from generation `generation - 1` to `generation`, shared by every
        /// observer that was up to date (most of them).
        var lastChanges: [FeedChange] = []
        var observers: [Int: Observer] = [:]
    }

    private struct State {
        var groups: [Feed: Group] = [:]
        var nextID = 0
        var task: Task<Void, Never>?
        var version: StoreVersion?
        var failure: (any Error)?
        /// The store the feeds are read from, until ``close()`` lets go of it.
        var store: (any StoreBackend)?
    }

    private let options: Options
    private let state: Locked<State>
    /// Entered for each waiting task while it runs (a task cancelled by the last observer
    /// leaving may still be ending when the next one starts): ``close()`` waits for all of them.
    private let running = DispatchGroup()
    /// Held while feeds are read, so an observer joining takes a snapshot that no refresh is
    /// being computed against.
    /// (Its value counts the refreshes.)
    private let reading = Locked(0)

    init(store: any StoreBackend, options: Options) {
        self.state = Locked(State(store: store))
        self.options = options
    }

    /// The store, or `closed` once ``close()`` let go of it.
    private func store(or closed: @autoclosure () -> any Error) throws -> any StoreBackend {
        guard let store = state.withLock({ $0.store }) else { throw closed() }
        return store
    }

    /// How many observers are open.
    package var observerCount: Int {
        state.withLock { $0.groups.values.reduce(0) { $0 + $1.observers.count } }
    }

    /// How many observers are waiting in `next()` for a change (tests wait for all of them).
    var waitingObserverCount: Int {
        state.withLock { $0.groups.values.reduce(0) { $0 + $1.observers.values.filter { $0.waiting != nil }.count } }
    }

    /// Opens an observer of `feed`; returns its id and the feed's snapshot.
    func subscribe(_ feed: Feed) throws -> (id: Int, snapshot: [Poster]) {
        let opened = try reading.withLock { _ -> (Int, [Poster]) in
            // The version is read before the snapshot, so a commit in between is seen again.
            let version = try store(or: FeedError.closed).changes.currentVersion()
            let existing = state.withLock { $0.groups[feed]?.snapshot }
            let snapshot = try existing ?? read(feed)
            return state.withLock { state in
                state.nextID += 1
                if state.groups[feed] == nil { state.groups[feed] = Group(snapshot: snapshot) }
                let (held, generation) = (state.groups[feed]!.snapshot, state.groups[feed]!.generation)
                // Added in place: a copy of the group would copy its observers.
                state.groups[feed]!.observers[state.nextID] = Observer(delivered: held, generation: generation)
                if state.version == nil { state.version = version }
                return (state.nextID, held)
            }
        }
        startIfNeeded()
        return opened
    }

    /// The changes to `feed` since observer `id` was last given any, waiting for some; nil
    /// once the observer is closed.
    func next(_ feed: Feed, id: Int) async throws -> FeedUpdate? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let answer = state.withLock { state -> Result<FeedUpdate?, any Error>? in
                    // Cancelled before the continuation is stored below, `onCancel` found
                    // nothing to resume: the wait would outlive the cancellation (a watch sent
                    // Ctrl-C as it printed a line ran on until the next change).
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if let failure = state.failure { return .failure(failure) }
                    if state.store == nil { return .success(nil) }  // closed
                    guard let group = state.groups[feed], let observer = group.observers[id] else { return .success(nil) }
                    if observer.generation < group.generation {
                        let changes = Self.changes(for: observer, in: group)
                        observer.delivered = group.snapshot
                        observer.generation = group.generation
                        if !changes.isEmpty { return .success(.changes(changes)) }
                    }
                    observer.waiting = continuation
                    return nil
                }
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<FeedUpdate?, any Error>? in
                guard let observer = state.groups[feed]?.observers[id] else { return nil }
                defer { observer.waiting = nil }
                return observer.waiting
            }
            waiting?.resume(throwing: CancellationError())
        }
    }

    /// The changes that bring `observer` from what it was given to the group's snapshot.
    private static func changes(for observer: Observer, in group: Group) -> [FeedChange] {
        observer.generation == group.generation - 1
            ? group.lastChanges : FeedDiff.changes(from: observer.delivered, to: group.snapshot)
    }

    /// Closes observer `id`; the source stops when the last observer leaves.
    func unsubscribe(_ feed: Feed, id: Int) {
        let (waiting, task) = state.withLock { state -> (CheckedContinuation<FeedUpdate?, any Error>?, Task<Void, Never>?) in
            let waiting = state.groups[feed]?.observers.removeValue(forKey: id)?.waiting
            if state.groups[feed]?.observers.isEmpty == true { state.groups[feed] = nil }
            guard state.groups.isEmpty, let task = state.task else { return (waiting, nil) }
            state.task = nil
            state.version = nil
            return (waiting, task)
        }
        waiting?.resume(returning: nil)
        task?.cancel()
    }

    private func startIfNeeded() {
        state.withLock { state in
            guard state.task == nil, !state.groups.isEmpty, state.store != nil else { return }
            state.failure = nil
            options.monitor?(.started)
            running.enter()
            state.task = Task.detached { [weak self, running] in
                await self?.run()
                running.leave()
            }
        }
    }

    /// Ends every observer (their `next()` answers nil), stops the waiting task and returns
    /// once it has ended, letting go of the store: after this the board is the store's only
    /// holder here, and observing throws ``FeedError/closed``. Closing again does nothing more.
    func close() async {
        endAll()
        await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in
            running.notify(queue: .global()) { ended.resume() }
        }
    }

    /// ``close()`` for a caller outside any task (a command's main thread): blocks this thread
    /// until the waiting task has ended.
    func closeBlocking() {
        endAll()
        running.wait()
    }

    /// Ends every observer and cancels the waiting task (``close()``).
    private func endAll() {
        let (waiting, task) = state.withLock { state -> ([CheckedContinuation<FeedUpdate?, any Error>], Task<Void, Never>?) in
            let waiting = state.groups.values.flatMap { $0.observers.values.compactMap(\.waiting) }
            state.groups = [:]
            state.store = nil
            state.version = nil
            defer { state.task = nil }
            return (waiting, state.task)
        }
        for continuation in waiting { continuation.resume(returning: nil) }
        task?.cancel()
    }

    /// Waits for changes and hands them out until cancelled or the source fails (past the
    /// grace, for an unavailable store).
    private func run() async {
        defer { options.monitor?(.stopped) }
        // Under a test's virtual clock, ticks alone pace the reads.
        let realTime = ChangeSignal.wakes(on: options.clock)
        var lastRefresh: ContinuousClock.Instant?
        var outage: Outage?
        while !Task.isCancelled {
            guard let version = state.withLock({ $0.version }) else { return }
            do {
                // Taken each round: once closed, the task holds the store no more than a round.
                let changes = try store(or: CancellationError()).changes
                let next: StoreVersion
                if outage != nil {
                    // Whatever was committed while the store failed is unknown (a refresh may
                    // have stopped half way, and a restarted database's listener heard
                    // nothing): every feed is re-read, and each observer gets one diff from
                    // what it was last given.
                    next = try changes.currentVersion()
                } else {
                    next = try await changes.nextChange(after: version, interval: options.interval, clock: options.clock)
                    if realTime, let lastRefresh, ContinuousClock.now < lastRefresh + options.spacing {
                        // The read after the pause sees every commit made meanwhile too.
                        try await ContinuousClock().sleep(until: lastRefresh + options.spacing)
                    }
                }
                try Task.checkCancellation()
                options.monitor?(.changed)
                lastRefresh = ContinuousClock.now
                try refresh(version: next)
                outage = nil
            } catch {
                if Task.isCancelled || error is CancellationError || error as? FeedError == .closed { return }
                var failing = outage ?? Outage(since: options.clock)
                guard ErrorKind.of(error) == .unavailable, let pause = failing.nextPause(grace: options.grace) else {
                    fail(error)
                    return
                }
                outage = failing
                options.monitor?(.unavailable)
                // Cancelled (the last observer left, or closed): the loop ends.
                try? await options.clock.sleep(for: pause)
            }
        }
    }

    /// How long the store has failed as `unavailable`, and the pauses between tries: short at
    /// first (a dropped connection is often back at once), doubling up to a second.
    private struct Outage {
        /// Time since the first failure, on the options' clock.
        let elapsed: () -> Duration
        var tries = 0

        init<C: Clock<Duration>>(since clock: C) {
            let start = clock.now
            elapsed = { start.duration(to: clock.now) }
        }

        /// The pause before the next try, never past the grace; nil once the grace is spent.
        mutating func nextPause(grace: Duration) -> Duration? {
            let left = grace - elapsed()
            guard left > .zero else { return nil }
            defer { tries += 1 }
            return min(.milliseconds(100) * (1 << min(tries, 4)), .seconds(1), left)
        }
    }

    /// Re-reads every observed feed once and wakes the observers whose feed changed.
    private func refresh(version: StoreVersion) throws {
        try reading.withLock { refreshes in
            refreshes += 1
            let feeds = state.withLock { state -> [Feed] in
                state.version = version
                return Array(state.groups.keys)
            }
            for feed in feeds {
                let posters = try read(feed)
                let woken = state.withLock { state -> [(CheckedContinuation<FeedUpdate?, any Error>, FeedUpdate)] in
                    guard var group = state.groups[feed] else { return [] }
                    let changes = FeedDiff.changes(from: group.snapshot, to: posters)
                    guard !changes.isEmpty else { return [] }
                    group.snapshot = posters
                    group.generation += 1
                    group.lastChanges = changes
                    var woken: [(CheckedContinuation<FeedUpdate?, any Error>, FeedUpdate)] = []
                    for observer in group.observers.values {
                        guard let waiting = observer.waiting else { continue }
                        woken.append((waiting, .changes(Self.changes(for: observer, in: group))))
                        observer.waiting = nil
                        observer.delivered = posters
                        observer.generation = group.generation
                    }
                    state.groups[feed] = group
                    return woken
                }
                for (continuation, update) in woken { continuation.resume(returning: update) }
            }
        }
    }

    /// Ends every observer with `error`.
    private func fail(_ error: any Error) {
        let waiting = state.withLock { state -> [CheckedContinuation<FeedUpdate?, any Error>] in
            state.failure = error
            state.task = nil
            state.version = nil
            var waiting: [CheckedContinuation<FeedUpdate?, any Error>] = []
            for feed in state.groups.keys {
                for observer in state.groups[feed]!.observers.values {
                    if let continuation = observer.waiting { waiting.append(continuation) }
                    observer.waiting = nil
                }
            }
            state.groups = [:]
            return waiting
        }
        for continuation in waiting { continuation.resume(throwing: error) }
    }

    /// The posters of `feed` now, from one snapshot.
    private func read(_ feed: Feed) throws -> [Poster] {
        options.monitor?(.read(feed))
        let store = try store(or: FeedError.closed)
        if let id = feed.poster { return try store.readSingle { try $0.posters(ids: [id]) } }
        guard let query = feed.searchQuery else {
            return try Board.pageOfAll(order: feed.order, after: nil, offset: 0, limit: feed.limit, in: store)
        }
        return try Board.searchPosters(query, order: feed.order, after: nil, offset: 0, limit: feed.limit, in: store)
    }
}
