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
    private let state = Locked(State())

    private struct State {
        var version: Int64 = 1
        var snapshot: String?
        var subscription: ChangeListener.Subscription?
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
        var listening = false
        var pushWakes = true
        var ticks = 0
    }

    /// While listening, one tick in this many checks the snapshot (about once a second at
    /// the default 50 ms interval).
    static let safetyTicks = 20

    init(listener: ChangeListener, pool: ConnectionPool) {
        self.listener = listener
        self.pool = pool
    }

    func currentVersion() throws -> StoreVersion {
        startListening()
        try checkSnapshot()
        return StoreVersion(state.withLock { $0.version })
    }

    func nextChange(after version: StoreVersion, interval: Duration, clock: any Clock<Duration>) async throws -> StoreVersion {
        startListening()
        let realTime = clock is ContinuousClock || clock is SuspendingClock
        state.withLock { $0.pushWakes = realTime }
        while true {
            if let moved = moved(from: version) { return moved }
            guard realTime else {
                try await clock.sleep(for: interval)
                try checkSnapshot()
                continue
            }
            // Whichever comes first: a notification, or the tick.
            let ticked = try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await clock.sleep(for: interval)
                    return true
                }
                group.addTask {
                    await self.waitForSignal(after: version)
                    return false
                }
                defer { group.cancelAll() }
                return try await group.next() ?? false
            }
            try Task.checkCancellation()
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
        state.withLock { $0.version != version.value ? StoreVersion($0.version) : nil }
    }

    /// Returns when the counter moves past `version`, or when the calling task is cancelled.
    private func waitForSignal(after version: StoreVersion) async {
        let ticket = state.withLock { state -> Int in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.version != version.value || Task.isCancelled { return true }
                    state.waiters[ticket] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: ticket) }
            waiter?.resume()
        }
    }

    /// Reads the server's snapshot; a different one from last time moves the counter.
    private func checkSnapshot() throws {
        let snapshot = try pool.withConnection { try $0.query("SELECT pg_current_snapshot()::text").text(0, 0) }
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state.snapshot = snapshot }
            guard let last = state.snapshot, last != snapshot else { return [] }
            return bump(&state)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Subscribes to the shared listener once. It connects in the background: until it
    /// listens, the ticks' snapshot checks alone find changes.
    private func startListening() {
        let subscribe = state.withLock { $0.subscription == nil }
        guard subscribe else { return }
        // A listener that cannot start a thread leaves the ticks to find every change.
        guard let subscription = try? listener.subscribe({ [weak self] signal in self?.signal(signal) }) else { return }
        let extra = state.withLock { state -> ChangeListener.Subscription? in
            if state.subscription == nil {
                state.subscription = subscription
                return nil
            }
            return subscription
        }
        extra?.cancel()
    }

    private func signal(_ signal: ChangeListener.Signal) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            switch signal {
            case .lost:
                state.listening = false
                return []
            case .resync: state.listening = true
            case .changed: break
            }
            return state.pushWakes ? bump(&state) : []
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Moves the counter and hands back the waiters to resume (outside the lock).
    private func bump(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        state.version += 1
        defer { state.waiters.removeAll() }
        return Array(state.waiters.values)
    }
}
