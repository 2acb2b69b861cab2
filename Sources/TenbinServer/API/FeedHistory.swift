import TenbinKit

/// The feed states recently sent as server-sent events, by event id, so a client that
/// reconnects with `Last-Event-ID` gets only the changes since the state it has instead of a
/// fresh snapshot.
///
/// An id names a feed (order, limit, query) and the exact list of posters a client holds after
/// applying the event that carried it: a hash of both. Every stream of the same feed in the
/// same state gets the same id, so a thousand streams of the front page add one entry per
/// change, not a thousand. The oldest entries are forgotten past `capacity`; an id that is
/// unknown (forgotten, from before a restart, made up) gets a fresh snapshot.
final class FeedHistory: Sendable {
    private struct State {
        var entries: [String: (feed: Feed, posters: [Poster])] = [:]
        /// Ids in the order they were first remembered, oldest first from `start`.
        var order: [String] = []
        var start = 0
    }

    let capacity: Int
    private let state = Locked(State())

    init(capacity: Int = 2048) {
        self.capacity = capacity
    }

    /// Remembers `posters` as a state of `feed`; returns its id.
    func remember(_ posters: [Poster], of feed: Feed) -> String {
        var hasher = Hasher()
        hasher.combine(feed)
        hasher.combine(posters)
        let id = String(UInt64(bitPattern: Int64(hasher.finalize())), radix: 36)
        state.withLock { state in
            guard state.entries[id] == nil else { return }
            state.entries[id] = (feed, posters)
            state.order.append(id)
            if state.entries.count > capacity {
                state.entries[state.order[state.start]] = nil
                state.start += 1
                if state.start > capacity {
                    state.order.removeFirst(state.start)
                    state.start = 0
                }
            }
        }
        return id
    }

    /// The posters a client holds after the event with `id`, when that id is known for `feed`.
    func posters(after id: String, of feed: Feed) -> [Poster]? {
        state.withLock { state in
            guard let entry = state.entries[id], entry.feed == feed else { return nil }
            return entry.posters
        }
    }
}
