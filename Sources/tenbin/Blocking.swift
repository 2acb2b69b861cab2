import Dispatch
import TenbinKit

/// The one bridge from tenbin's synchronous commands to async library work (loading images
/// in parallel, importing). Commands that never await never start the concurrency runtime,
/// which keeps `tenbin vote` starting as fast as it can.
enum Blocking {
    /// Runs `body` on the concurrency pool and blocks this (main) thread until it is done.
    /// The main thread is not one of the pool's, so blocking it takes nothing from the work.
    ///
    /// With a `limit`, the wait ends after it whether `body` has finished or not, throwing
    /// ``TimedOut``: `body` keeps running (and holding what it holds) until tenbin exits.
    static func run<T: Sendable>(within limit: Duration? = nil, _ body: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Locked<Result<T, any Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Task.detached {
            let result = await Self.result(of: body)
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

    private static func result<T>(of body: @Sendable () async throws -> T) async -> Result<T, any Error> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }
}
