import Testing

@testable import TenbinKit

/// A clock that moves only when a test advances it, so polling runs in virtual time.
///
/// It counts every sleep requested, knows who is asleep, and lets a test wait until the code
/// under test is asleep again (that is, until it has finished reacting to the last tick).
final class VirtualClock: Clock {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let id: Int
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID = 0
        var sleepCalls = 0
        /// Tests waiting for someone to fall asleep.
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    /// How many sleeps were ever requested.
    var sleepCalls: Int { state.withLock { $0.sleepCalls } }
    /// How many sleepers are waiting for time to pass.
    var pendingSleepers: Int { state.withLock { $0.sleepers.count } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            state.sleepCalls += 1
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, waiters): (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) = state.withLock { state in
                    // Checked under the lock, so a cancellation either sees this sleeper or is seen here.
                    if Task.isCancelled { return (.failure(CancellationError()), []) }
                    if deadline <= state.now { return (.success(()), []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    defer { state.waiters = [] }
                    return (nil, state.waiters)
                }
                if let outcome { continuation.resume(with: outcome) }
                for waiter in waiters { waiter.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time on by `duration` and wakes every sleeper whose deadline has come.
    func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once at least one sleeper is waiting.
    func untilSomeoneSleeps() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let asleep = state.withLock { state in
                if !state.sleepers.isEmpty { return true }
                state.waiters.append(waiter)
                return false
            }
            if asleep { waiter.resume() }
        }
    }

    /// Advances by `duration`, then waits until the code under test is asleep again.
    func tick(_ duration: Duration) async {
        advance(by: duration)
        await untilSomeoneSleeps()
    }

    /// Returns once `count` sleeps are waiting (yielding, never sleeping, meanwhile).
    func waitForSleepers(_ count: Int) async {
        await waitUntil("\(count) sleeps on the virtual clock") { pendingSleepers >= count }
    }
}
