import TenbinKit

/// One LISTEN per store per process, shared by every observer: a server with a thousand open
/// live feeds holds one listening connection, not a thousand.
///
/// The listener starts with the first subscriber and stops with the last. Each subscriber is
/// told `.changed` for every batch of notifications and `.resync` whenever the LISTEN is (re)
/// established — after a lost connection anything may have been missed, so it re-reads and
/// sends its observer one diff from what it last delivered to what is there now.
final class ChangeListener: Sendable {
    /// What a subscriber hears.
    enum Signal: Sendable, Equatable {
        /// These posters changed (nil: unknown, any may have), committed before the primary's
        /// log reached `position` (nil: an announcement from a tenbin that does not send it).
        case changed(Set<Int64>?, position: Int64?)
        /// Listening (again): re-read everything watched.
        case resync
        /// The listening connection could not be made or was lost; the listener keeps trying.
        case lost(String)
    }

    /// A subscription; cancelling it (or releasing it) stops its signals.
    final class Subscription: Sendable {
        fileprivate let id: Int
        fileprivate let owner: ChangeListener

        fileprivate init(id: Int, owner: ChangeListener) {
            self.id = id
            self.owner = owner
        }

        /// Stops this subscription's signals.
        func cancel() { owner.unsubscribe(id) }

        deinit { owner.unsubscribe(id) }
    }

    private let target: ConnectionTarget
    private let retryMilliseconds: Int
    private let state = Locked(State())

    private struct State {
        var next = 0
        var subscribers: [Int: @Sendable (Signal) -> Void] = [:]
        var listener: NotificationListener?
    }

    /// The database, for messages.
    var location: String { target.description }

    init(target: ConnectionTarget, retryMilliseconds: Int = 200) {
        self.target = target
        self.retryMilliseconds = retryMilliseconds
    }

    /// Calls `handler` (on the listener's thread) for every signal until the subscription ends.
    /// The first signal is `.resync` once the LISTEN is in place.
    func subscribe(_ handler: @escaping @Sendable (Signal) -> Void) throws -> Subscription {
        let (id, listening) = state.withLock { state -> (Int, Bool) in
            defer { state.next += 1 }
            state.subscribers[state.next] = handler
            return (state.next, state.listener != nil)
        }
        if listening {
            // Already listening: this subscriber reads once, now.
            handler(.resync)
        } else if try !start() {
            // Another subscriber started the listener first; it may have announced itself
            // before this one was registered.
            handler(.resync)
        }
        return Subscription(id: id, owner: self)
    }

    /// Starts a listener; false when another subscriber's start won the race (this one's is
    /// stopped). Made outside the lock (it starts a thread), installed under it.
    private func start() throws -> Bool {
        let listener = try NotificationListener(
            target: target, channel: ChangeNotifier.channel, retryMilliseconds: retryMilliseconds
        ) { [weak self] event in self?.deliver(event) }
        let extra = state.withLock { state -> NotificationListener? in
            if state.listener == nil && !state.subscribers.isEmpty {
                state.listener = listener
                return nil
            }
            return listener
        }
        extra?.stop()
        return extra == nil
    }

    private func unsubscribe(_ id: Int) {
        let stopping = state.withLock { state -> NotificationListener? in
            state.subscribers[id] = nil
            guard state.subscribers.isEmpty else { return nil }
            defer { state.listener = nil }
            return state.listener
        }
        stopping?.stop()
    }

    private func deliver(_ event: NotificationListener.Event) {
        let signal: Signal
        switch event {
        case .listening: signal = .resync
        case .lost(let reason): signal = .lost(reason)
        case .notification(let text):
            // `IDS@POSITION` (see ``ChangeNotifier``); older servers send `IDS` alone.
            let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
            let payload = parts[0]
            let position = parts.count > 1 ? Int64(parts[1]) : nil
            if payload == "*" {
                signal = .changed(nil, position: position)
            } else {
                signal = .changed(Set(payload.split(separator: ",").compactMap { Int64($0) }), position: position)
            }
        }
        let handlers = state.withLock { Array($0.subscribers.values) }
        for handler in handlers { handler(signal) }
    }
}
