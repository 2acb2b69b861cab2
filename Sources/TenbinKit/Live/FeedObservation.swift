/// A live feed: an `AsyncSequence` whose first element is the feed's snapshot and whose next
/// elements are the changes any process commits to it (see ``FeedChange``).
///
/// Every observation of a board shares the board's ``LiveFeeds`` source: one wait for
/// commits, one re-read per distinct feed per change. Commits that arrive while the consumer
/// is busy come out as one change set when it next asks (a slow reader costs no memory for
/// what it has not read); commits that leave the feed as it was deliver nothing.
///
/// Cancelling the iterating task ends the sequence; releasing the iterator closes it too.
public struct FeedObservation: AsyncSequence, Sendable {
    /// Each element is a snapshot (first) or a list of changes.
    public typealias Element = FeedUpdate

    let live: LiveFeeds
    /// The feed observed.
    public let feed: Feed

    init(live: LiveFeeds, feed: Feed) {
        self.live = live
        self.feed = feed
    }

    /// Starts observing; nothing is read until the first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(live: live, feed: feed)
    }

    /// Delivers the snapshot, then each change set.
    public struct Iterator: AsyncIteratorProtocol {
        private let live: LiveFeeds
        private let feed: Feed
        private var subscription: Subscription?
        private var finished = false

        init(live: LiveFeeds, feed: Feed) {
            self.live = live
            self.feed = feed
        }

        /// The next update; nil once cancelled.
        public mutating func next() async throws -> FeedUpdate? {
            try await next(isolation: nil)
        }

        /// The next update; nil once cancelled.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> FeedUpdate? {
            guard !finished else { return nil }
            do {
                try Task.checkCancellation()
                guard let subscription else {
                    let (id, snapshot) = try live.subscribe(feed)
                    self.subscription = Subscription(live: live, feed: feed, id: id)
                    return .snapshot(snapshot)
                }
                if let update = try await live.next(feed, id: subscription.id) { return update }
                finish()
                return nil
            } catch {
                finish()
                if error is CancellationError { return nil }
                throw error
            }
        }

        private mutating func finish() {
            finished = true
            subscription = nil
        }
    }

    /// An open observer of the shared source, closed when released.
    final class Subscription: Sendable {
        let live: LiveFeeds
        let feed: Feed
        let id: Int

        init(live: LiveFeeds, feed: Feed, id: Int) {
            self.live = live
            self.feed = feed
            self.id = id
        }

        deinit {
            live.unsubscribe(feed, id: id)
        }
    }
}
