import Foundation

/// Starting and waiting for child processes without giving the test's thread a run loop.
///
/// Foundation's `Process.run()` adds a source to the calling thread's run loop (creating one),
/// and `waitUntilExit()` spins that run loop. Swift Testing runs tests on Dispatch's worker
/// threads, which end when they have been idle a while; a worker that had a run loop then
/// finalises it while the thread ends, after ThreadSanitizer has torn down the thread's state,
/// and the allocation that finalising makes crashed the whole test process under
/// `make sanitize` (a SEGV inside ThreadSanitizer's allocator, after every test had passed,
/// 2 runs in 5). So a child is started from one thread that never ends, and waited for by
/// polling, which needs no run loop: Foundation learns that a child ended on a thread of its
/// own and clears `isRunning` there.
extension Process {
    /// Starts the process (as `run()` does) from the launcher thread.
    public func start() throws {
        try Launcher.shared.perform { try self.run() }
    }

    /// Waits until the process has ended (as `waitUntilExit()` does), without a run loop.
    public func waitForExit() {
        while isRunning { usleep(2_000) }
    }
}

/// The thread children are started from: started once, never ended.
private final class Launcher: @unchecked Sendable {
    static let shared = Launcher()

    // `jobs` is read and written with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []

    private init() {
        let thread = Thread { [self] in
            while true {
                condition.lock()
                while jobs.isEmpty { condition.wait() }
                let job = jobs.removeFirst()
                condition.unlock()
                job()
            }
        }
        thread.name = "child launcher"
        thread.start()
    }

    /// Runs `body` on the launcher thread and returns (or throws) what it did.
    func perform(_ body: @escaping () throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: (any Error)?
        condition.lock()
        jobs.append {
            do { try body() } catch { failure = error }
            done.signal()  // orders `failure`'s write before the caller's read
        }
        condition.signal()
        condition.unlock()
        done.wait()
        if let failure { throw failure }
    }
}
