/// What the HTTP layer asks of the application: how to answer a request whose head has
/// arrived, and what to do once an exchange is over.
protocol HTTPHandling: Sendable {
    /// Decides, from the request line and header fields alone, how to answer: at once, or
    /// after reading a body within a limit.
    func admit(_ head: RequestHead) -> Admission
    /// Called once per request when its exchange ends, answered or not.
    func finished(_ record: ExchangeRecord)
}

/// The request line and header fields of a request.
struct RequestHead: Sendable {
    /// The method, as sent (`GET`, `POST`, …).
    var method: String
    /// The request target as sent: path and query, still percent-encoded.
    var target: String
    /// The header fields tenbin reads (repeated ones joined with ", ").
    var headers: HeaderFields
    /// The address of the peer that connected (a proxy's, behind one).
    var peerAddress: String

    /// The path part of the target (before `?`), still percent-encoded.
    var rawPath: Substring { Self.path(of: target) }

    /// The query part of the target (after `?`), still percent-encoded; empty without one.
    var rawQuery: Substring {
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return "" }
        return target[target.utf8.index(after: mark)...]
    }

    /// The part of a request target before `?`, found by byte (not by character: every request
    /// asks for it, and `?` is ASCII, so the index is on a character boundary).
    static func path(of target: String) -> Substring {
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return target[...] }
        return target[..<mark]
    }

    /// A header field's value by its lowercase name (one of ``HeaderFields/known``).
    func header(_ name: String) -> String? { headers[name] }
}

/// How to answer a request, decided from its head.
struct Admission: Sendable {
    /// What to do.
    enum Action: Sendable {
        /// Answer without reading a body.
        case reply(Reply)
        /// Read a body within `limit`, then answer.
        case read(BodyLimit, then: @Sendable (RequestHead, RequestBody) -> Reply)
    }

    /// The route's name for metrics and the log (`GET /api/v1/posters/{id}`).
    var route: String
    /// What to do.
    var action: Action

    /// An answer without a body read.
    static func reply(_ route: String, _ reply: Reply) -> Admission { Admission(route: route, action: .reply(reply)) }
}

/// An answer: ready now, or produced by work done off the server's threads.
enum Reply: Sendable {
    /// Answer with this response.
    case now(HTTPResponse)
    /// Answer with what `work` hands to its callback, from any thread; the connection waits
    /// (suspended) meanwhile. The work runs where its job's model says (docs/architecture.md):
    /// the board executor (``BoardExecutor/reply(failure:invalidStatus:_:)``), the vote
    /// batcher's queue, or the image pipeline's tasks.
    case callback(@Sendable (_ answer: @escaping @Sendable (HTTPResponse) -> Void) -> Void)
}

/// What body a route accepts.
enum BodyLimit: Sendable {
    /// Raw bytes, at most this many.
    case bytes(Int)
    /// A `multipart/form-data` or urlencoded form within these limits.
    case form(FormLimits)

    /// The most bytes the whole body may hold.
    var maximumBytes: Int {
        switch self {
        case .bytes(let count): count
        case .form(let limits): limits.maximumBytes
        }
    }
}

/// A request's body once read.
enum RequestBody: Sendable {
    /// Raw bytes.
    case bytes([UInt8])
    /// The parts of a form.
    case form(FormParts)
    /// The body broke a limit or a rule while it was read; the request gets this error.
    case refused(APIError)
}

/// One finished exchange, for the log and the metrics.
struct ExchangeRecord: Sendable {
    var method: String
    /// The path without the query, still percent-encoded.
    var path: String
    var route: String
    /// The status sent, or 0 when the connection ended before an answer.
    var status: Int
    /// Bytes of the body sent, when known.
    var bytes: Int?
    var duration: Duration
    var client: String
    /// What failed behind a 500 or 503 (the client got a fixed sentence), or nil.
    var cause: String? = nil
    /// The request's `X-Forwarded-For`, which the log believes only behind a trusted proxy.
    var forwardedFor: String? = nil
}
