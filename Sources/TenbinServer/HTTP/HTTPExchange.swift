import CMicroHTTPD
import TenbinKit

/// One request and its answer, from the request line to the end of the exchange. libmicrohttpd
/// holds it (retained) as the request's context pointer; every callback about the request
/// runs on the one thread that owns the connection, except `complete(_:)`, which work done
/// elsewhere calls.
final class HTTPExchange: @unchecked Sendable {
    // `phase`, `head`, `connection`, `form`, `postProcessor`, `stream`, `watched` and the counters are
    // touched only by libmicrohttpd's callbacks for this request, which run one at a time on
    // the thread owning the connection. `waiting` is shared with the work that produces a
    // deferred answer and sits behind its own lock.

    /// Where the exchange is.
    enum Phase {
        /// The request line has arrived; the header fields are next.
        case fresh
        /// The answer is known; libmicrohttpd calls once more when the (empty) request is
        /// complete, and it is queued then: an answer queued before that closes the connection.
        case ready(Reply)
        /// A body is being read.
        case reading(BodyLimit, then: @Sendable (RequestHead, RequestBody) -> Reply)
        /// Work is producing the answer; the connection is suspended.
        case waiting
        /// A response is queued.
        case answered
    }

    /// The deferred answer and whether the connection is suspended waiting for it.
    struct Waiting {
        var suspended = false
        var response: HTTPResponse?
        /// The daemon is stopping and gave up on the work.
        var abandoned = false
    }

    let target: String
    let started: ContinuousClock.Instant
    var phase = Phase.fresh
    var head: RequestHead?
    var route = ""
    var connection: OpaquePointer?
    /// What is kept for the connection (nil only for one libmicrohttpd gave no socket).
    var open: HTTPConnection?
    var status = 0
    var bytesSent: Int?
    /// What failed behind a 5xx answer, for the log.
    var cause: String?

    // Body reading.
    var bytes: [UInt8] = []
    var received = 0
    var declaredLength: Int?
    var form: FormParts?
    var postProcessor: OpaquePointer?
    var refusal: APIError?

    var stream: EventStream?
    /// The number ``HangUpWatch`` knows `stream` by, if it watches its socket.
    var watched: UInt64?
    /// A `Locked` (a pthread mutex), not the standard library's `Mutex`, though that one would
    /// save two allocations: the batcher resumes the connection while holding it, the woken I/O
    /// thread then asks for it at once, and `Mutex` spins while it waits (5 % of the I/O
    /// threads' time under votes, against 1.6 % in `futex` calls with a pthread mutex).
    let waiting = Locked(Waiting())

    init(target: String) {
        self.target = target
        self.started = .now
    }

    /// Suspends the connection until `complete(_:)` delivers the answer; does nothing once the
    /// daemon has given up on the exchange (it is stopping and will close the connection, which
    /// it may not do while the connection is suspended).
    func suspend() {
        waiting.withLock { waiting in
            guard !waiting.abandoned else { return }
            MHD_suspend_connection(connection!)  // set on the first callback, before any reply
            waiting.suspended = true
        }
    }

    /// Delivers a deferred answer and resumes the connection (which calls the access handler
    /// again, where the answer is queued).
    func complete(_ response: HTTPResponse) {
        waiting.withLock { waiting in
            guard !waiting.abandoned else { return }
            waiting.response = response
            Self.resume(&waiting, connection!)  // set on the first callback, before the work began
        }
    }

    /// Gives up on deferred work (the daemon is stopping): resumes the connection so it can be
    /// closed. Returns whether it was suspended.
    @discardableResult
    func abandon() -> Bool {
        waiting.withLock { waiting in
            waiting.abandoned = true
            guard waiting.suspended else { return false }
            Self.resume(&waiting, connection!)  // a suspended exchange has its connection
            return true
        }
    }

    private static func resume(_ waiting: inout Waiting, _ connection: OpaquePointer) {
        guard waiting.suspended else { return }
        waiting.suspended = false
        MHD_resume_connection(connection)
    }

    /// Frees what the exchange holds in libmicrohttpd once it is over.
    func close() {
        if let postProcessor {
            _ = MHD_destroy_post_processor(postProcessor)  // the exchange is over; a malformed tail no longer matters
            self.postProcessor = nil
        }
        stream?.detach()
    }

    /// What the log and the metrics record.
    var record: ExchangeRecord {
        ExchangeRecord(
            method: head?.method ?? "-", path: String(RequestHead.path(of: target)), route: route.isEmpty ? "unmatched" : route,
            status: status, bytes: bytesSent, duration: .now - started, client: head?.peerAddress ?? "-", cause: cause,
            forwardedFor: head?.header("x-forwarded-for"))
    }
}
