import Dispatch
import TenbinKit

/// The one bridge from tenbin's synchronous commands to async library work (loading images
/// in parallel, importing). Commands that never await never start the concurrency runtime,
/// which keeps `tenbin vote` starting as fast as it can.
enum Blocking {
    /// Runs `body` on the concurrency pool and blocks this (main) thread until it is done.
    /// The main thread is not one of the pool's, so blocking it takes nothing from the work.
    static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Locked<Result<T, any Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Task.detached {
            let result: Result<T, any Error>
            do {
                result = .success(try await body())
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            finished.signal()
        }
        finished.wait()
        // Set before the signal that ended the wait.
        return try outcome.withLock { $0! }.get()
    }
}
