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
    /// The events that take a client from one state to the next, and where they lead.
    struct Step: Sendable {
        /// The events' text, each with its id.
        var text: String
        /// The id of the state the step ends in.
        var id: String
        /// The posters of that state.
        var posters: [Poster]
    }

    private struct StepKey: Hashable {
        var from: String
        var changes: [FeedChange]
    }

    private struct State {
        var entries: [String: (feed: Feed, posters: [Poster])] = [:]
        /// Steps already made, so every stream in the same state shares one (the many streams
        /// of one feed get the same changes): bounded, emptied when full.
        var steps: [StepKey: Step] = [:]
        /// Ids in the order they were first remembered, oldest first from `start`.
        var order: [String] = []
        var start = 0
    }

    let capacity: Int
    private let state = Locked(State())

    init(capacity: Int = 1024) {
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

    /// The step from state `id` through `changes`: made once by `make`, then shared.
    func step(from id: String, through changes: [FeedChange], make: () throws -> Step) rethrows -> Step {
        let key = StepKey(from: id, changes: changes)
        if let known = state.withLock({ $0.steps[key] }) { return known }
        let step = try make()
        state.withLock { state in
            if state.steps.count >= 512 { state.steps.removeAll(keepingCapacity: true) }
            state.steps[key] = step
        }
        return step
    }

    /// The posters a client holds after the event with `id`, when that id is known for `feed`.
    func posters(after id: String, of feed: Feed) -> [Poster]? {
        state.withLock { state in
            guard let entry = state.entries[id], entry.feed == feed else { return nil }
            return entry.posters
        }
    }
}
