/// A live feed: an `AsyncSequence` whose first element is the feed's snapshot and whose next
/// elements are the changes any process commits to it (see ``FeedChange``).
///
/// Each iteration opens its own read connection and polls SQLite's `PRAGMA data_version` on
/// the options' clock: a poll that finds no commit costs a look at the WAL index; after a
/// commit the feed is re-read once and compared with the previous snapshot. Commits between
/// two polls (and while the consumer is busy) come out as one change set; commits that leave
/// the feed as it was (a vote on a poster outside it) deliver nothing.
///
/// Nothing runs between calls to `next()`: no task is started and no timer is left behind.
/// Cancelling the iterating task ends the sequence (the pending sleep is cancelled) and closes
/// the connection; releasing the iterator closes it too.
public struct FeedObservation: AsyncSequence, Sendable {
    public typealias Element = FeedUpdate

    /// How an observation polls.
    public struct Options: Sendable {
        /// How long to wait between two checks for commits (default 50 ms).
        public var interval: Duration
        /// The clock that waits (tests pass a virtual one).
        public var clock: any Clock<Duration>
        /// Told what the reader does (for tests).
        var monitor: (@Sendable (FeedReader.Event) -> Void)?

        /// Options polling every `interval` on `clock`.
        public init(interval: Duration = .milliseconds(50), clock: any Clock<Duration> = ContinuousClock()) {
            self.interval = interval
            self.clock = clock
        }
    }

    /// The database file observed.
    let path: String
    /// The feed observed.
    public let feed: Feed
    let options: Options

    init(path: String, feed: Feed, options: Options) {
        self.path = path
        self.feed = feed
        self.options = options
    }

    /// A new iteration with its own connection, opened on the first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(reader: FeedReader(path: path, feed: feed, monitor: options.monitor), options: options)
    }

    /// Delivers a live feed's updates; owns the observation's connection.
    public struct Iterator: AsyncIteratorProtocol {
        private var reader: FeedReader?
        private var snapshot: [Poster]?
        private let options: Options

        init(reader: FeedReader, options: Options) {
            self.reader = reader
            self.options = options
        }

        /// The next update; nil once the iterating task is cancelled.
        public mutating func next() async throws -> FeedUpdate? {
            try await next(isolation: nil)
        }

        /// The next update; nil once the iterating task is cancelled.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> FeedUpdate? {
            guard let reader else { return nil }
            do {
                try Task.checkCancellation()
                guard let snapshot else {
                    // The first read always delivers.
                    let first = try reader.readIfChanged() ?? []
                    self.snapshot = first
                    return .snapshot(first)
                }
                var current = snapshot
                while true {
                    try await options.clock.sleep(for: options.interval)
                    guard let posters = try reader.readIfChanged() else { continue }
                    let changes = FeedDiff.changes(from: current, to: posters)
                    current = posters
                    self.snapshot = posters
                    if !changes.isEmpty { return .changes(changes) }
                }
            } catch {
                finish()
                if error is CancellationError { return nil }
                throw error
            }
        }

        private mutating func finish() {
            reader?.close()
            reader = nil
        }
    }
}
