import Dispatch
import Glibc
import TenbinKit

/// The one place the server's blocking work runs: store reads that missed the read cache,
/// searches, posts, edits, deletes and health checks. A fixed set of threads takes jobs in
/// order from one queue; libmicrohttpd's I/O threads only hand work here (the connection
/// waits, suspended) and never block on a store themselves.
///
/// The queue is bounded: past ``maximumQueued`` jobs waiting, a request is answered 503 at
/// once rather than queued behind work it would wait seconds for.
final class BoardExecutor: Sendable {
    /// Jobs waiting, in order; read and written under this lock.
    private let queue = Locked<(jobs: [@Sendable () -> Void], head: Int, stopped: Bool)>(([], 0, false))
    /// Counts the jobs waiting (and, once stopped, one wake-up per thread).
    private let available = DispatchSemaphore(value: 0)
    /// The threads, joined by ``stop()``; set once in init.
    private let running = Locked<[pthread_t]>([])
    /// The threads that run jobs.
    let threads: Int
    /// The most jobs that may wait at once.
    let maximumQueued: Int

    /// Starts `threads` threads (at least one).
    init(threads: Int, maximumQueued: Int = 4096) {
        self.threads = max(1, threads)
        self.maximumQueued = maximumQueued
        for _ in 0..<self.threads {
            // A machine that cannot start a thread for the server's work cannot serve.
            guard let thread = PosixThread.start({ [self] in work() }) else {
                preconditionFailure("cannot start a thread for the board executor")
            }
            running.withLock { $0.append(thread) }
        }
    }

    private func work() {
        while true {
            available.wait()
            let job = queue.withLock { queue -> (@Sendable () -> Void)? in
                guard queue.head < queue.jobs.count else { return nil }
                let job = queue.jobs[queue.head]
                queue.head += 1
                if queue.head == queue.jobs.count {
                    queue.jobs.removeAll(keepingCapacity: true)
                    queue.head = 0
                }
                return job
            }
            guard let job else { break }  // stopped, and nothing left
            job()
        }
    }

    /// Queues `job`; false when the queue is full or the executor has stopped.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let queued = queue.withLock { queue -> Bool in
            guard !queue.stopped, queue.jobs.count - queue.head < maximumQueued else { return false }
            queue.jobs.append(job)
            return true
        }
        if queued { available.signal() }
        return queued
    }

    /// Jobs waiting now.
    var waiting: Int { queue.withLock { $0.jobs.count - $0.head } }

    /// Runs the jobs already queued, then ends every thread and returns once they have ended.
    func stop() {
        let first = queue.withLock { queue -> Bool in
            defer { queue.stopped = true }
            return !queue.stopped
        }
        guard first else { return }
        for _ in 0..<threads { available.signal() }
        for thread in running.withLock({ $0 }) {
            _ = pthread_join(thread, nil)  // joinable threads of this executor's own, joined once: cannot fail
        }
    }

    /// A reply whose response `work` produces on this executor; its error becomes `failure`'s
    /// answer (a board's invalid input with `invalidStatus`), and a full queue a 503.
    func reply(
        failure: @escaping @Sendable (APIError) -> HTTPResponse, invalidStatus: Int = 422,
        _ work: @escaping @Sendable () throws -> HTTPResponse
    ) -> Reply {
        reply(failure: failure, invalidStatus: invalidStatus) { answer in answer(try work()) }
    }

    /// A reply that `work`, run on this executor, answers through its callback (at once, or
    /// later from elsewhere); its error becomes `failure`'s answer, and a full queue a 503.
    func reply(
        failure: @escaping @Sendable (APIError) -> HTTPResponse, invalidStatus: Int = 422,
        _ work: @escaping @Sendable (_ answer: @escaping @Sendable (HTTPResponse) -> Void) throws -> Void
    ) -> Reply {
        .callback { [self] answer in
            let queued = submit {
                do {
                    try work(answer)
                } catch {
                    answer(failure(APIError(error, invalidStatus: invalidStatus)))
                }
            }
            if !queued { answer(failure(.unavailable("the server is busy; try again shortly"))) }
        }
    }
}
