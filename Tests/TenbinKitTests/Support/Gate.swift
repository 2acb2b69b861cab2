@testable import TenbinKit

/// Holds tasks until it is opened; a waiting task that is cancelled leaves at once with
/// `CancellationError`. Lets tests put a load in a known state without sleeping.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var cancelled: Set<Int> = []
        var next = 0
    }

    private let state = Locked(State())

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async throws {
        let ticket = state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelled.contains(ticket) { return .failure(CancellationError()) }
                    if state.isOpen { return .success(()) }
                    state.waiters[ticket] = continuation
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.cancelled.insert(ticket)
                return state.waiters.removeValue(forKey: ticket)
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}

/// A number many tasks add to, remembering the highest it reached.
final class Counter: Sendable {
    private let state = Locked((count: 0, highest: 0))

    var count: Int { state.withLock { $0.count } }
    var highest: Int { state.withLock { $0.highest } }

    func increment() { add(1) }

    func add(_ amount: Int) {
        state.withLock { state in
            state.count += amount
            state.highest = max(state.highest, state.count)
        }
    }
}
