/// A count that moves whenever a store may have changed, and the tasks waiting for it to
/// move: how a change source that is told of commits (its own writer's, another process's
/// file writes, a database's notifications) wakes the live feeds at once instead of at their
/// next tick.
package final class ChangeSignal: Sendable {
    private struct State {
        var count: Int64 = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextTicket = 0
    }

    private let state = Locked(State())

    /// A signal that has not moved.
    package init() {}

    /// Whether signals may wake a wait on `clock`: only on the real clocks. A test's virtual
    /// clock is driven by its caller, and what a feed delivers then depends on its ticks alone.
    package static func wakes(on clock: any Clock<Duration>) -> Bool {
        clock is ContinuousClock || clock is SuspendingClock
    }

    /// How often the signal has moved.
    package var count: Int64 { state.withLock { $0.count } }

    /// Moves the count and wakes every waiter.
    package func signal() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count += 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when the count has moved past `seen` (at once if it already has), or when the
    /// calling task is cancelled.
    package func wait(after seen: Int64) async {
        let ticket = state.withLock { state -> Int in
            defer { state.nextTicket += 1 }
            return state.nextTicket
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.count != seen || Task.isCancelled { return true }
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

    /// Whichever comes first: the count moves past `seen` (true), or `timeout` passes on
    /// `clock` (false). Cancelling the calling task ends the wait with `CancellationError`.
    package func wait(after seen: Int64, timeout: Duration, clock: any Clock<Duration>) async throws -> Bool {
        let signalled = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await clock.sleep(for: timeout)
                return false
            }
            group.addTask {
                await self.wait(after: seen)
                return true
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        try Task.checkCancellation()
        return signalled
    }
}
