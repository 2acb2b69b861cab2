import Foundation
import Testing

/// Runs a suite's tests on threads of their own instead of Swift's shared pool.
///
/// End-to-end tests block their thread for seconds at a time: waiting for a child process,
/// reading its pipe, a socket. The shared pool has one thread per core (two here), and
/// everything asynchronous in the test process needs one of them: the unit tests, the time
/// limits, the library's own tasks (a live feed's change source). Two blocked end-to-end
/// tests used to stop all of that for minutes under a sanitizer, until a two-minute limit ran
/// out on a test that was only waiting for its turn. On these threads they block only each
/// other (two per core, see ``EndToEndThreads/shared``).
struct OwnThreads: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(EndToEndThreads.shared) { try await function() }
    }
}

extension Trait where Self == OwnThreads {
    /// The suite's tests block their threads: run them on the end-to-end tests' own threads.
    static var ownThreads: Self { OwnThreads() }
}

/// A fixed set of threads running the jobs of tasks that prefer it, first come first served.
final class EndToEndThreads: TaskExecutor, @unchecked Sendable {
    /// Two threads per core (`TENBIN_TEST_E2E_THREADS` sets another count). An end-to-end test
    /// spends much of its time waiting for its children: with one thread per core the end-to-end
    /// tests under ThreadSanitizer left the two cores 41 % idle (418 s for 342 s of CPU); with
    /// two per core they took 302 s for the same CPU.
    static let shared = EndToEndThreads(
        count: ProcessInfo.processInfo.environment["TENBIN_TEST_E2E_THREADS"].flatMap(Int.init)
            ?? 2 * max(1, ProcessInfo.processInfo.activeProcessorCount))

    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var threads: [pthread_t] = []
    private let condition = NSCondition()

    private init(count: Int) {
        for index in 0..<count {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "end-to-end \(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Whether the caller runs on one of these threads.
    var isCurrent: Bool {
        condition.lock()
        defer { condition.unlock() }
        return threads.contains { pthread_equal($0, pthread_self()) != 0 }
    }

    private func work() {
        condition.lock()
        threads.append(pthread_self())
        condition.unlock()
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
