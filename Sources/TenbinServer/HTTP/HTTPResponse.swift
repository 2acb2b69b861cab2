/// An answer to a request, before it is handed to libmicrohttpd.
struct HTTPResponse: Sendable {
    /// What the body is made of.
    enum Body: Sendable {
        /// Bytes in memory.
        case bytes([UInt8])
        /// `size` bytes of an open file, sent by the library (with sendfile where it can)
        /// and closed by it afterwards.
        case file(descriptor: Int32, size: Int)
        /// Bytes shared by many answers, sent without a copy (a blob kept in memory: the
        /// library then sends the head and the body in one call).
        case shared(SharedBytes)
        /// An answer made once and sent as it is every time (``PreparedResponse``); its status
        /// and header fields are the prepared ones.
        case prepared(PreparedResponse)
        /// A server-sent event stream that stays open until either side ends it.
        case events(EventStream)
    }

    /// The status code.
    var status: Int
    /// Header fields in the order they are sent.
    var headers: [(name: String, value: String)]
    /// The body.
    var body: Body
    /// What failed, for the request log only (see ``APIError/cause``).
    var cause: String?

    /// A response with `body` and the given headers.
    init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON answer.
    static func json(_ text: String, status: Int = 200, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("Content-Type", "application/json; charset=utf-8")] + headers + [("Cache-Control", "no-store")],
            body: .bytes(Array((text + "\n").utf8)))
    }

    /// A plain-text answer.
    static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: .bytes(Array(text.utf8)))
    }

    /// Adds a header field.
    func adding(_ name: String, _ value: String) -> HTTPResponse {
        var copy = self
        copy.headers.append((name, value))
        return copy
    }

    /// The value of a header field already set (for tests and the log).
    func header(_ name: String) -> String? {
        // Compared byte by byte, ASCII case folded: every answer is looked at this way as it is
        // sent (``SecurityHeaders``), so no lowercased copies are made.
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// Bytes of the body when known in advance.
    var bodyCount: Int? {
        switch body {
        case .bytes(let bytes): bytes.count
        case .file(_, let size): size
        case .shared(let bytes): bytes.count
        case .prepared(let prepared): prepared.bytes.count
        case .events: nil
        }
    }
}
