import TenbinKit

/// Live-feed changes of a PostgreSQL store: pushed by LISTEN/NOTIFY, and checked on every tick.
///
/// The version is a local counter. It moves when a notification arrives on the one shared
/// listening connection (a commit on any server: feeds hear of it at once, without waiting for
/// a tick), when that connection comes back after being lost, and when a tick finds that the
/// server's transaction snapshot (`pg_current_snapshot()`: the next transaction id and those
/// in progress) differs from the one last seen — so a commit whose notification was lost, or
/// made while nobody listened, is still never missed. A snapshot moves on any write in the
/// cluster; a feed then re-reads and delivers nothing, which is allowed.
///
/// While listening, the snapshot is checked only every ``safetyTicks`` ticks (notifications
/// do the work); while not, on every tick. Under a clock other than the real ones (a test's
/// virtual clock, which its caller drives) notifications do not wake anyone between ticks and
/// every tick checks the snapshot, so what a feed delivers depends on ticks alone.
final class PostgresChangeSource: ChangeSource {
    private let listener: ChangeListener
    private let pool: ConnectionPool
    /// Told the primary's log position a change was learnt at (nil: unknown, ask the primary),
    /// before any feed wakes for it: with standbys, the feed's next read must see that far.
    private let learn: (@Sendable (Int64?) -> Void)?
    private let state = Locked(State())
    /// The version: moved by notifications, by the listener coming back, and by snapshots.
    private let counter = ChangeSignal()

    private struct State {
        var snapshot: String?
        var subscription: ChangeListener.Subscription?
        var listening = false
        var pushWakes = true
        var ticks = 0
        /// Set by ``close()``: no subscription is made any more.
        var closed = false
    }

    /// While listening, one tick in this many checks the snapshot (about once a second at
    /// the default 50 ms interval).
    static let safetyTicks = 20

    init(listener: ChangeListener, pool: ConnectionPool, learn: (@Sendable (Int64?) -> Void)? = nil) {
        self.listener = listener
        self.pool = pool
        self.learn = learn
    }

    func currentVersion() throws -> StoreVersion {
        startListening()
        try checkSnapshot()
        return StoreVersion(counter.count)
    }

    func nextChange(after version: StoreVersion, interval: Duration, clock: any Clock<Duration>) async throws -> StoreVersion {
        startListening()
        let realTime = ChangeSignal.wakes(on: clock)
        state.withLock { $0.pushWakes = realTime }
        while true {
            if let moved = moved(from: version) { return moved }
            guard realTime else {
                try await clock.sleep(for: interval)
                try checkSnapshot()
                continue
            }
            // Whichever comes first: a notification, or the tick.
            let ticked = try await !counter.wait(after: version.value, timeout: interval, clock: clock)
            let check =
                ticked
                && state.withLock { state -> Bool in
                    state.ticks += 1
                    return !state.listening || state.ticks % Self.safetyTicks == 0
                }
            if check { try checkSnapshot() }
        }
    }

    private func moved(from version: StoreVersion) -> StoreVersion? {
        let now = counter.count
        return now != version.value ? StoreVersion(now) : nil
    }

    /// Reads the server's snapshot; a different one from last time moves the counter.
    private func checkSnapshot() throws {
        let rows = try pool.withConnection {
            try $0.query("SELECT pg_current_snapshot()::text, (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint")
        }
        let snapshot = rows.text(0, 0)
        let moved = state.withLock { state -> Bool in
            defer { state.snapshot = snapshot }
            guard let last = state.snapshot, last != snapshot else { return false }
            return true
        }
        if moved {
            if let learn { learn(try rows.int64(0, 1)) }
            counter.signal()
        }
    }

    /// Subscribes to the shared listener once. It connects in the background: until it
    /// listens, the ticks' snapshot checks alone find changes.
    private func startListening() {
        let subscribe = state.withLock { $0.subscription == nil && !$0.closed }
        guard subscribe else { return }
        // A listener that cannot start a thread leaves the ticks to find every change.
        guard let subscription = try? listener.subscribe({ [weak self] signal in self?.signal(signal) }) else { return }
        let extra = state.withLock { state -> ChangeListener.Subscription? in
            if state.subscription == nil && !state.closed {
                state.subscription = subscription
                return nil
            }
            return subscription
        }
        extra?.cancel()
    }

    /// Ends the subscription (the listening connection closes with the last one) and starts
    /// none again; looking at the version then throws, as the pool is closed too.
    func close() {
        let subscription = state.withLock { state -> ChangeListener.Subscription? in
            state.closed = true
            defer { state.subscription = nil }
            return state.subscription
        }
        subscription?.cancel()
    }

    private func signal(_ signal: ChangeListener.Signal) {
        switch signal {
        case .changed(_, let position): learn?(position)
        case .resync: learn?(nil)
        case .lost: break
        }
        let moves = state.withLock { state -> Bool in
            switch signal {
            case .lost:
                state.listening = false
                return false
            case .resync: state.listening = true
            case .changed: break
            }
            return state.pushWakes
        }
        if moves { counter.signal() }
    }
}
