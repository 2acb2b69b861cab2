import Dispatch
import TenbinKit

#if canImport(Glibc)
    import Glibc
#endif

/// Writes the request log from one thread of its own, so a request never waits on the log:
/// the threads answering requests only append a record to a bounded queue (dropping it, and
/// counting the drop, when the queue is full), and the writer formats what has queued up and
/// hands it to the sink in one call. A standard error that is a pipe nobody reads then stalls
/// the writer alone; the server keeps answering and `/metrics` shows the lines dropped.
final class RequestLogWriter: Sendable {
    private struct Pending {
        var record: ExchangeRecord
        var finished: LogTime
    }

    private struct State {
        var pending: [Pending] = []
        var dropped = 0
        /// The writer found the queue empty and waits for `wake`.
        var writerWaiting = false
        /// `finish` was called: the writer drains the queue and ends.
        var finishing = false
    }

    /// How long the writer lets lines gather after being woken, in microseconds.
    static let gatherMicroseconds: UInt32 = 20_000

    /// How lines are formatted.
    let format: RequestLog
    /// The most records waiting to be written; more are dropped.
    let capacity: Int
    private let sink: @Sendable (String) -> Void
    private let state = Locked(State())
    /// Signalled when a record arrives while the writer waits, and by `finish`.
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled by the writer when it has drained the queue after `finish`.
    private let ended = DispatchSemaphore(value: 0)

    /// A writer handing formatted lines (each ending in a newline, several at a time) to
    /// `sink` on a thread of its own. Without a thread (the system refuses one), lines are
    /// written by the caller.
    init(format: RequestLog, capacity: Int = 8192, sink: @escaping @Sendable (String) -> Void) {
        self.format = format
        self.capacity = capacity
        self.sink = sink
        // The thread keeps the writer: it outlives its server until the thread ends.
        if let thread = PosixThread.start({ self.run() }) {
            _ = pthread_detach(thread)  // never joined: a writer stuck on a full pipe must not hold up the exit
        } else {
            state.withLock { $0.finishing = true }
        }
    }

    /// Queues `record`; never blocks on the sink.
    func log(_ record: ExchangeRecord) {
        let entry = Pending(record: record, finished: .now())
        let (wakeWriter, writeHere) = state.withLock { state -> (Bool, Bool) in
            if state.finishing { return (false, true) }
            guard state.pending.count < capacity else {
                state.dropped += 1
                return (false, false)
            }
            state.pending.append(entry)
            guard state.writerWaiting else { return (false, false) }
            state.writerWaiting = false
            return (true, false)
        }
        if wakeWriter { wake.signal() }
        // After finish (or without a thread) the rare late line is written directly.
        if writeHere { sink(format.line(for: record, finished: entry.finished) + "\n") }
    }

    /// Records dropped because the queue was full.
    var dropped: Int { state.withLock { $0.dropped } }

    /// Lets the writer write what is queued and end; waits for that at most `timeout`
    /// (a sink that blocks for good is given up on). Later records are written by the caller.
    func finish(timeout: Duration) {
        let alreadyFinishing = state.withLock { state -> Bool in
            defer { state.finishing = true }
            return state.finishing
        }
        guard !alreadyFinishing else { return }
        wake.signal()
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        _ = ended.wait(timeout: .now() + .nanoseconds(Int(nanoseconds)))  // a timeout leaves the stuck writer behind
    }

    private func run() {
        while true {
            let (batch, finishing) = state.withLock { state -> ([Pending], Bool) in
                let batch = state.pending
                state.pending.removeAll(keepingCapacity: true)
                if batch.isEmpty && !state.finishing { state.writerWaiting = true }
                return (batch, state.finishing)
            }
            if batch.isEmpty {
                if finishing {
                    ended.signal()
                    return
                }
                wake.wait()
                // Let lines gather for a moment: one write and one wake-up per burst instead of
                // one per request (a request thread's wake-up costs it a system call).
                if !state.withLock({ $0.finishing }) { usleep(Self.gatherMicroseconds) }
                continue
            }
            var text: [UInt8] = []
            text.reserveCapacity(batch.count * 160)
            for entry in batch {
                format.append(entry.record, finished: entry.finished, to: &text)
                text.append(UInt8(ascii: "\n"))
            }
            sink(String(decoding: text, as: UTF8.self))
        }
    }
}
