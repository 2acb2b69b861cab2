import Dispatch
import Glibc
import TenbinKit

/// The one bridge from tenbin's synchronous commands to async library work (loading images
/// in parallel, importing). Commands that never await never start the concurrency runtime,
/// which keeps `tenbin vote` starting as fast as it can.
enum Blocking {
    /// Runs `body` on the concurrency pool and blocks this (main) thread until it is done.
    /// The main thread is not one of the pool's, so blocking it takes nothing from the work.
    ///
    /// `body` is released before the wait ends: tenbin exits right after its command returns,
    /// and a store that `body` held, released by a pool thread only after that, would never
    /// close (SQLite would leave its write-ahead log uncheckpointed beside the database).
    ///
    /// With a `limit`, the wait ends after it whether `body` has finished or not, throwing
    /// ``TimedOut``: `body` keeps running (and holding what it holds) until tenbin exits.
    static func run<T: Sendable>(within limit: Duration? = nil, _ body: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Locked<Result<T, any Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let handedOver = Locked<(@Sendable () async throws -> T)?>(body)
        Task.detached {
            // The box lets go of `body` here, and `result(of:)` holds the only reference, which
            // ends when it returns.
            let result = await Self.result(
                of: handedOver.withLock { box in
                    defer { box = nil }
                    return box!  // set above, taken once
                })
            outcome.withLock { $0 = result }
            finished.signal()
        }
        if let limit {
            let (seconds, attoseconds) = limit.components
            let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            guard finished.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else { throw TimedOut(limit: limit) }
        } else {
            finished.wait()
        }
        // Set before the signal that ended the wait.
        return try outcome.withLock { $0! }.get()
    }

    /// ``run(within:_:)``'s work did not finish within its limit.
    struct TimedOut: Error {
        let limit: Duration
    }

    /// Waits until `reference` is the only one left to its object, then lets go of it here.
    ///
    /// Work on other threads that held a board (an import's commit queue, its decoding tasks,
    /// the task that ran it) lets go of it a moment after it has finished, and tenbin exits
    /// right after its command returns: released there, the board's store would never close,
    /// leaving SQLite's write-ahead log uncheckpointed beside the database (a reader of a
    /// read-only copy of the folder would miss what it holds). Released here, it closes before
    /// the exit. The bound only keeps a reference that is never let go from hanging the exit.
    static func release<Object: AnyObject>(_ reference: inout Object?) {
        let deadline = ContinuousClock.now + .seconds(10)
        while !isKnownUniquelyReferenced(&reference) && ContinuousClock.now < deadline {
            _ = usleep(100)  // an interrupted sleep only looks again sooner
        }
        reference = nil
    }

    private static func result<T>(of body: @Sendable () async throws -> T) async -> Result<T, any Error> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }
}
