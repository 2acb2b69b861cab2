import Glibc

/// A thread of its own that runs the work given to it one piece at a time, in order, until
/// ``finish()``.
///
/// Unlike a serial `DispatchQueue`, whose work runs on whichever of Dispatch's threads is
/// free, everything here runs on one thread. glibc's malloc keeps an arena per thread, and
/// memory stays in the arena of the thread that allocated it: an import's commits hopping
/// between pool threads left SQLite's freed cache pages behind in each one's arena (a
/// million-line manifest at 308 MB instead of 200), which is why imports used to limit the
/// whole process to one arena, where the reading and the committing thread then waited on
/// each other's every allocation (docs/benchmarks.md).
final class SerialThread: @unchecked Sendable {
    // `pending` and `finishing` are used only with `mutex` held; that is what makes the
    // `@unchecked Sendable` safe.
    private var pending: [@Sendable () -> Void] = []
    private var finishing = false
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var thread = pthread_t()

    /// Starts the thread.
    init() {
        // Default attributes: these fail only without memory, after which nothing could run.
        precondition(pthread_mutex_init(mutex, nil) == 0 && pthread_cond_init(condition, nil) == 0, "pthread init failed")
        // The thread keeps this object until it ends. Without a thread an import cannot commit.
        guard let thread = PosixThread.start({ self.run() }) else { preconditionFailure("the system refused a thread") }
        self.thread = thread
    }

    deinit {
        _ = pthread_cond_destroy(condition)  // nobody waits: the thread holds a reference while it runs
        _ = pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Queues `work` to run after everything queued before it.
    func async(_ work: @escaping @Sendable () -> Void) {
        locked {
            // A caller's bug: work given after finish() would never run.
            precondition(!finishing, "work given to a finished SerialThread")
            pending.append(work)
        }
        _ = pthread_cond_signal(condition)  // cannot fail on an initialised condition
    }

    /// Runs what is queued, then ends the thread and waits for it.
    func finish() {
        locked { finishing = true }
        _ = pthread_cond_signal(condition)
        _ = pthread_join(thread, nil)  // joined once, by its owner: cannot fail
    }

    private func run() {
        while let batch = next() {
            for work in batch { work() }
        }
    }

    /// The work queued so far, waiting for some; nil once finishing with nothing left.
    private func next() -> [@Sendable () -> Void]? {
        locked {
            while pending.isEmpty && !finishing { _ = pthread_cond_wait(condition, mutex) }
            defer { pending.removeAll() }
            return pending.isEmpty ? nil : pending
        }
    }

    private func locked<Result>(_ body: () -> Result) -> Result {
        _ = pthread_mutex_lock(mutex)  // a default mutex only fails on misuse
        defer { _ = pthread_mutex_unlock(mutex) }
        return body()
    }
}
