import CMicroHTTPD
import Dispatch
import TenbinKit

#if canImport(Glibc)
    import Glibc
#endif

/// How the daemon listens and what it allows each connection.
struct HTTPDaemonOptions: Sendable {
    /// Where to listen.
    var address: ListenAddress
    /// Worker threads, each running its own epoll loop over its share of the connections.
    var threads: Int
    /// The most connections open at once.
    var connectionLimit = 10_000
    /// The most connections open at once from one address (0: no limit).
    var perAddressLimit = 256
    /// Seconds a connection may sit idle (no bytes either way) before it is closed.
    var timeoutSeconds = 30
    /// Bytes per connection for the request line, header fields and buffers. A request whose
    /// head does not fit is answered by libmicrohttpd itself (414 or 431, with its own HTML
    /// page), so this is well above the limits below, which tenbin answers with its JSON error.
    /// libmicrohttpd zeroes the whole of it before each request of a kept-alive connection:
    /// 128 KiB cost a sixth of the CPU of a page request, and 64 KiB was 7 % of a small blob's
    /// (`perf` under wrk), so it is 32 KiB, room for both limits below and the answer's head.
    var memoryLimit = 32 * 1024
    /// The most bytes of a request target (path and query) answered; longer ones get 414.
    /// (A query string is at most 8 KiB; Apache's and nginx's request lines stop at 8 KiB.)
    var maximumTargetBytes = 10 * 1024
    /// The most bytes of header fields (names and values) answered; more get 431 (Node's
    /// limit: a browser's head is a few hundred bytes, cookies included).
    var maximumHeaderBytes = 16 * 1024
}

/// The libmicrohttpd daemon: owns the `MHD_Daemon` handle and turns its callbacks into calls
/// on an ``HTTPHandling``.
///
/// The daemon runs a pool of threads, each with its own epoll set. Answers that need blocking
/// work are produced elsewhere while the connection is suspended (see ``Reply/callback(_:)``), so
/// no thread serving other connections waits on them.
final class HTTPDaemon: Sendable {
    let handler: any HTTPHandling
    // The daemon handle: set by start(), cleared by stop(); both run under this lock.
    private let daemon = Locked<OpaquePointer?>(nil)
    /// Watches event streams' sockets for clients that leave; set while the daemon runs.
    private let hangUps = Locked<HangUpWatch?>(nil)
    /// Event streams whose response is queued, by exchange, so a stop can end them all.
    private let streams = Locked<[ObjectIdentifier: EventStream]>([:])
    /// Set when `stop` begins: every answer from then on closes its connection.
    private let draining = Locked(false)
    /// Set when `stop` stops waiting for exchanges: a request whose head arrives from then on
    /// is refused with 503 before any work (it could not be answered after it).
    private let closing = Locked(false)
    /// Closes connections too slow to send a request's head.
    let deadlines: HeaderDeadlines
    /// The limits of a request's head (set by `start`, read by the connections' threads after).
    private let headLimits = Locked((target: 16 * 1024, headers: 32 * 1024))

    /// The address cannot be listened on.
    struct StartError: Error, CustomStringConvertible {
        let address: ListenAddress
        let reason: String
        var description: String { "cannot listen on \(address): \(reason)" }
    }

    /// libmicrohttpd cannot be loaded (see Sources/CMicroHTTPD/library.c): the library's name
    /// and the loader's reason.
    struct LibraryError: KindedError {
        let description: String
        /// Nothing about the request is wrong: the machine lacks the library.
        var kind: ErrorKind { .unavailable }
    }

    /// A daemon that will hand requests to `handler` once started, closing connections that
    /// take longer than `headerTimeout` to send a request's head, or (kept alive) longer than
    /// `idleTimeout` to begin the next one.
    init(handler: any HTTPHandling, headerTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(30)) {
        self.handler = handler
        deadlines = HeaderDeadlines(headerTimeout: headerTimeout, idleTimeout: idleTimeout)
    }

    deinit {
        stop(grace: .zero)
    }

    /// Starts listening and returns the port bound (the system chooses one for port 0).
    /// The daemon must stay alive (it is the callbacks' context) until `stop` returns.
    func start(_ options: HTTPDaemonOptions) throws -> UInt16 {
        var reason = [CChar](repeating: 0, count: Int(TB_HTTP_ERROR_CAPACITY))
        guard tb_http_load(&reason) == 0 else {
            throw LibraryError(description: String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        headLimits.withLock { $0 = (options.maximumTargetBytes, options.maximumHeaderBytes) }
        return try daemon.withLock { daemon in
            precondition(daemon == nil, "a daemon is started once")
            let context = Unmanaged.passUnretained(self).toOpaque()
            let started = try options.address.withSocketAddress { address in
                var settings = tb_http_options(
                    address: address, threads: UInt32(max(1, options.threads)), connection_limit: UInt32(options.connectionLimit),
                    per_ip_limit: UInt32(options.perAddressLimit), timeout_seconds: UInt32(options.timeoutSeconds),
                    memory_limit: options.memoryLimit, backlog: 1024, handler: Callbacks.access, handler_context: context,
                    completed: Callbacks.completed, completed_context: context, uri_logger: Callbacks.begin,
                    uri_logger_context: context, notify_connection: Callbacks.connection, notify_connection_context: context)
                errno = 0
                guard let started = tb_http_start(&settings) else {
                    let code = errno
                    throw StartError(
                        address: options.address,
                        reason: code == 0 ? "libmicrohttpd refused to start" : String(cString: strerror(code)))
                }
                return started
            }
            daemon = started
            hangUps.withLock { $0 = HangUpWatch() }
            return tb_http_bound_port(started)
        }
    }

    /// Stops gracefully (a drain): accepts no new connection; ends every event stream; answers the requests it has (votes
    /// after their batch commits) and any that arrive meanwhile on open connections, each answer
    /// with `Connection: close`, for at most `grace`; then gives up on deferred work still
    /// running and closes every connection. Idle kept-alive connections are left open until then:
    /// shutting one down earlier could cut off a request libmicrohttpd had already read, which
    /// would be answered into a closed socket (a vote counted, its answer lost). The store stays
    /// open throughout, so every request
    /// gets its real answer: a proxy never sees a refusal it would pass on (it does not send a
    /// refused POST to another server).
    func stop(grace: Duration) {
        daemon.withLock { daemon in
            guard let running = daemon else { return }
            draining.withLock { $0 = true }
            let listening = MHD_quiesce_daemon(running)
            if listening >= 0 { _ = Glibc.close(listening) }  // the socket is ours after quiesce; nothing to do if close fails
            // A stream queued after this loop sees `draining` and finishes itself (see queue).
            for stream in streams.withLock({ Array($0.values) }) { stream.finish() }
            // Every exchange is answered (with `Connection: close`), and the grace also lets the
            // peers close their idle kept-alive connections themselves: a proxy's pooled
            // connection closed by the server while the proxy writes a request onto it costs a
            // client a 502 (nginx does not send a POST elsewhere). The documented nginx block
            // closes idle upstream connections after 1 s (`keepalive_timeout`), inside the grace.
            let deadline = ContinuousClock.now + grace
            while ContinuousClock.now < deadline, deadlines.openConnections > 0 {
                usleep(10_000)
            }
            closing.withLock { $0 = true }
            // Stopping with a suspended connection is not allowed (libmicrohttpd aborts the
            // process): resume every one first. An exchange begun after this snapshot is admitted
            // after `closing` was set, so it is refused at once and never suspends. An abandoned exchange never suspends again, and
            // a finished stream's reader never suspends, so none is suspended past this point.
            for exchange in deadlines.exchanges { exchange.abandon() }
            for stream in streams.withLock({ Array($0.values) }) { stream.finish() }
            MHD_stop_daemon(running)
            deadlines.stop()
            daemon = nil
            hangUps.withLock { watch in
                watch?.stop()
                watch = nil
            }
        }
    }

    // MARK: Callbacks, on the thread that owns the connection

    /// Exchanges in progress now.
    var exchangesInProgress: Int { deadlines.exchanges.count }

    /// The request line has arrived: a new exchange becomes the request's context, and its
    /// connection's exchange in progress.
    fileprivate func begin(target: String, connection: OpaquePointer?) -> UnsafeMutableRawPointer {
        let exchange = HTTPExchange(target: target)
        if let open = connection.flatMap(Self.open) {
            deadlines.requestLineArrived(open)
            exchange.open = open
            open.state.withLock { $0.exchange = exchange }
        }
        return Unmanaged.passRetained(exchange).toOpaque()
    }

    /// The exchange is over, answered or not.
    fileprivate func completed(_ exchange: HTTPExchange) {
        if let open = exchange.open {
            deadlines.answered(open)
            open.state.withLock { $0.exchange = nil }
        }
        if let number = exchange.watched { hangUps.withLock { $0 }?.forget(number) }
        if exchange.stream != nil { streams.withLock { $0[ObjectIdentifier(exchange)] = nil } }
        exchange.close()
        handler.finished(exchange.record)
    }

    /// What is kept for an open connection (``connection(_:opened:context:)``).
    private static func open(_ connection: OpaquePointer) -> HTTPConnection? {
        tb_http_socket_context(connection).map { Unmanaged<HTTPConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    /// One call of the access handler; returns false to close the connection.
    fileprivate func access(
        _ exchange: HTTPExchange, connection: OpaquePointer, method: String, upload: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>
    ) -> Bool {
        switch exchange.phase {
        case .fresh:
            exchange.connection = connection
            if let open = exchange.open { deadlines.headArrived(open) }
            let headers = Self.headers(of: connection)
            let headerBytes = headers.bytes
            let head = RequestHead(
                method: method, target: exchange.target, headers: headers,
                peerAddress: exchange.open?.peerAddress ?? ListenAddress.describe(tb_http_client_address(connection)))
            exchange.head = head
            let admission = refusal(target: exchange.target, headerBytes: headerBytes) ?? handler.admit(head)
            exchange.route = admission.route
            switch admission.action {
            case .reply(let reply):
                // A request with a body it does not need is answered at once (which closes the
                // connection instead of reading the body); others on the next call.
                if Self.declaresBody(head) { return perform(reply, exchange) }
                exchange.phase = .ready(reply)
                return true
            case .read(let limit, let then):
                // Refused by the route's answer, so it is answered in its style and counted.
                if let refusal = Self.refusal(of: head, limit: limit, exchange: exchange) {
                    return perform(then(head, .refused(refusal)), exchange)
                }
                if case .form(let limits) = limit {
                    exchange.form = FormParts(limits: limits)
                    let processor = MHD_create_post_processor(
                        connection, 16 * 1024, Callbacks.formPart, Unmanaged.passUnretained(exchange).toOpaque())
                    guard let processor else {
                        let refusal = APIError.unsupportedMediaType(
                            "the body must be multipart/form-data with its boundary (Content-Type: multipart/form-data; boundary=…)")
                        return perform(then(head, .refused(refusal)), exchange)
                    }
                    exchange.postProcessor = processor
                }
                exchange.phase = .reading(limit, then: then)
                return true
            }
        case .ready(let reply):
            guard uploadSize.pointee == 0 else { return false }  // a body after all: it was not declared
            return perform(reply, exchange)
        case .reading(let limit, let then):
            let size = uploadSize.pointee
            if size > 0 {
                uploadSize.pointee = 0
                exchange.received += size
                if exchange.received > limit.maximumBytes {
                    // Only a body without Content-Length (chunked) gets here: it was not refused
                    // up front, and no answer can be queued mid-body, so the connection is closed.
                    guard exchange.declaredLength != nil else { return false }
                }
                guard exchange.refusal == nil else { return true }  // skip the rest of a refused body
                if let processor = exchange.postProcessor {
                    if MHD_post_process(processor, upload, size) != MHD_Result.YES, exchange.refusal == nil {
                        exchange.refusal = .badRequest("the form body is malformed")
                    }
                } else {
                    // libmicrohttpd passes data whenever the size is not 0.
                    upload!.withMemoryRebound(to: UInt8.self, capacity: size) {
                        exchange.bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: size))
                    }
                }
                return true
            }
            if let processor = exchange.postProcessor {
                exchange.postProcessor = nil
                if MHD_destroy_post_processor(processor) != MHD_Result.YES, exchange.refusal == nil {
                    exchange.refusal = .badRequest("the form body is malformed or ends early")
                }
            }
            let body: RequestBody
            if let refusal = exchange.refusal {
                body = .refused(refusal)
            } else if let form = exchange.form {
                body = .form(form)
            } else {
                body = .bytes(exchange.bytes)
            }
            exchange.bytes = []
            exchange.form = nil
            return perform(then(exchange.head!, body), exchange)  // head is set on the first call
        case .waiting:
            let (response, abandoned) = exchange.waiting.withLock { ($0.response, $0.abandoned) }
            guard let response, !abandoned else { return false }
            return queue(response, exchange)
        case .answered:
            uploadSize.pointee = 0
            return true
        }
    }

    /// The answer to a request this layer refuses before the application sees it: one whose
    /// head is over the limits, or one arriving as a drain ends.
    private func refusal(target: String, headerBytes: Int) -> Admission? {
        let limits = headLimits.withLock { $0 }
        if target.utf8.count > limits.target {
            return .reply(
                "unmatched",
                .now(
                    .error(
                        APIError(
                            status: 414, kind: "limit_exceeded",
                            message: "the request target is \(target.utf8.count) bytes, over this server's limit of \(limits.target)"))))
        }
        if headerBytes > limits.headers {
            return .reply(
                "unmatched",
                .now(
                    .error(
                        APIError(
                            status: 431, kind: "limit_exceeded",
                            message: "the header fields are \(headerBytes) bytes, over this server's limit of \(limits.headers)"))))
        }
        // A request that arrives on a kept-alive connection at the very end of a drain is refused
        // before any work (a vote is not cast), so sending it again elsewhere is safe.
        if closing.withLock({ $0 }) {
            return .reply(
                "draining", .now(.error(.unavailable("this server is shutting down; send the request again (to another server)"))))
        }
        return nil
    }

    /// Whether a request says it has a body.
    private static func declaresBody(_ head: RequestHead) -> Bool {
        if head.header("transfer-encoding") != nil { return true }
        guard let length = head.header("content-length") else { return false }
        return length.trimmingCharacters != "0"
    }

    /// The 413 or 400 a body is refused with before it is read, from its declared length.
    private static func refusal(of head: RequestHead, limit: BodyLimit, exchange: HTTPExchange) -> APIError? {
        guard let declared = head.header("content-length") else { return nil }
        guard let length = Int(declared.trimmingCharacters), length >= 0 else {
            return .badRequest("the Content-Length header is not a number")
        }
        exchange.declaredLength = length
        guard length <= limit.maximumBytes else {
            return .tooLarge("the body of \(length) bytes is over this server's limit of \(limit.maximumBytes) bytes")
        }
        return nil
    }

    private func perform(_ reply: Reply, _ exchange: HTTPExchange) -> Bool {
        switch reply {
        case .now(let response):
            return queue(response, exchange)
        case .callback(let work):
            exchange.phase = .waiting
            exchange.suspend()
            work { exchange.complete($0) }
            return true
        }
    }

    /// Hands `response` to libmicrohttpd; false (close the connection) when it refuses it.
    private func queue(_ response: HTTPResponse, _ exchange: HTTPExchange) -> Bool {
        if case .prepared(let prepared) = response.body {
            // While draining every answer gets `Connection: close`, which a shared response
            // cannot carry: it is then answered as any other.
            guard draining.withLock({ !$0 }) else { return queue(prepared.response, exchange) }
            exchange.phase = .answered
            let made = prepared.libraryResponse { Self.made(SecurityHeaders.complete(prepared.response)) }
            guard let made else { return false }
            exchange.status = prepared.status
            exchange.bytesSent = prepared.bytes.count
            return MHD_queue_response(exchange.connection!, UInt32(prepared.status), made) == MHD_Result.YES  // set on the first call
        }
        let response = SecurityHeaders.complete(response)
        exchange.phase = .answered
        let connection = exchange.connection!  // set on the first call
        let made: OpaquePointer?
        switch response.body {
        case .prepared(let prepared):
            made = Self.response(sharing: prepared.bytes)  // answered above; its head is `response`'s
        case .bytes(let bytes):
            made = bytes.withUnsafeBytes { buffer in
                MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .file(let descriptor, let size):
            made = MHD_create_response_from_fd64(UInt64(size), descriptor)
            if made == nil { _ = Glibc.close(descriptor) }  // the response would have owned it
        case .shared(let bytes):
            made = Self.response(sharing: bytes)
        case .events(let stream):
            exchange.stream = stream
            stream.attach(connection)
            streams.withLock { $0[ObjectIdentifier(exchange)] = stream }
            // A stop that began before the line above did not see this stream: end it here.
            if draining.withLock({ $0 }) { stream.finish() }
            exchange.watched = hangUps.withLock { $0 }?.watch(tb_http_client_socket(connection), for: stream)
            let context = Unmanaged.passRetained(stream).toOpaque()
            made = MHD_create_response_from_callback(UInt64.max, 4096, Callbacks.readEvents, context, Callbacks.releaseEvents)
            if made == nil { Unmanaged<EventStream>.fromOpaque(context).release() }
        }
        guard let made else { return false }
        defer { MHD_destroy_response(made) }
        var headers = response.headers
        // While draining every answer ends its connection, so kept-alive clients (a proxy's pool)
        // reconnect elsewhere instead of sending their next request here.
        if draining.withLock({ $0 }) { headers.append(("Connection", "close")) }
        for (name, value) in headers where !Self.add(name, value, to: made) {
            return false
        }
        exchange.status = response.status
        exchange.bytesSent = response.bodyCount
        exchange.cause = response.cause
        return MHD_queue_response(connection, UInt32(response.status), made) == MHD_Result.YES
    }

    /// A response sending `bytes` without a copy; it holds a reference to them until
    /// libmicrohttpd is done sending.
    private static func response(sharing bytes: SharedBytes) -> OpaquePointer? {
        let context = Unmanaged.passRetained(bytes).toOpaque()
        let made = MHD_create_response_from_buffer_with_free_callback_cls(bytes.count, bytes.baseAddress, Callbacks.releaseShared, context)
        if made == nil { Unmanaged<SharedBytes>.fromOpaque(context).release() }
        return made
    }

    /// libmicrohttpd's response for a prepared answer (``PreparedResponse/response``, its
    /// security headers completed), kept and queued for every request that asks for it.
    private static func made(_ response: HTTPResponse) -> OpaquePointer? {
        guard case .shared(let bytes) = response.body, let made = Self.response(sharing: bytes) else { return nil }
        for (name, value) in response.headers where !Self.add(name, value, to: made) {
            MHD_destroy_response(made)
            return nil
        }
        return made
    }

    /// Adds a header field to a response; false when libmicrohttpd refuses it. The strings are
    /// lent as they are: passed to the C function directly, Swift copied each into a new array
    /// first (eight allocations for a vote's answer).
    private static func add(_ name: String, _ value: String, to response: OpaquePointer) -> Bool {
        name.withCString { name in
            value.withCString { value in MHD_add_response_header(response, name, value) == MHD_Result.YES }
        }
    }

    /// The request's header fields tenbin reads, and the bytes of all of them.
    private static func headers(of connection: OpaquePointer) -> HeaderFields {
        var fields = HeaderFields()
        withUnsafeMutablePointer(to: &fields) { pointer in
            _ = MHD_get_connection_values(connection, .HEADER_KIND, Callbacks.header, pointer)  // the count is not needed
        }
        return fields
    }

    /// A connection opened or closed: what is kept for it is made, held (retained) as its
    /// socket context, and released once it closes.
    fileprivate func connection(_ connection: OpaquePointer, opened: Bool, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        if opened {
            let open = deadlines.opened(
                socket: tb_http_client_socket(connection), peerAddress: ListenAddress.describe(tb_http_client_address(connection)))
            context.pointee = Unmanaged.passRetained(open).toOpaque()
        } else if let pointer = context.pointee {
            context.pointee = nil
            let open = Unmanaged<HTTPConnection>.fromOpaque(pointer).takeRetainedValue()
            deadlines.closed(open)
        }
    }
}

/// The C callbacks libmicrohttpd calls; each finds its Swift object from its context pointer.
/// The context pointers are the ones handed to libmicrohttpd (never NULL), and the library
/// always passes the connection, the size pointer and the reader's buffer: the force-unwraps
/// below rest on that.
private enum Callbacks {
    static let begin: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = {
        context, uri, connection in
        let daemon = Unmanaged<HTTPDaemon>.fromOpaque(context!).takeUnretainedValue()
        return daemon.begin(target: uri.map { String(cString: $0) } ?? "", connection: connection)
    }

    static let connection: MHD_NotifyConnectionCallback = { context, connection, socketContext, code in
        guard let connection, let socketContext else { return }
        let daemon = Unmanaged<HTTPDaemon>.fromOpaque(context!).takeUnretainedValue()
        daemon.connection(connection, opened: code == .CONNECTION_NOTIFY_STARTED, context: socketContext)
    }

    static let access: MHD_AccessHandlerCallback = { context, connection, _, method, _, upload, uploadSize, requestContext in
        let daemon = Unmanaged<HTTPDaemon>.fromOpaque(context!).takeUnretainedValue()
        // The URI callback runs first for every request and always sets the context.
        guard let pointer = requestContext?.pointee else { return MHD_Result.NO }
        let exchange = Unmanaged<HTTPExchange>.fromOpaque(pointer).takeUnretainedValue()
        let method = method.map { String(cString: $0) } ?? ""
        return daemon.access(exchange, connection: connection!, method: method, upload: upload, uploadSize: uploadSize!)
            ? MHD_Result.YES : MHD_Result.NO
    }

    static let completed: MHD_RequestCompletedCallback = { context, connection, requestContext, _ in
        guard let pointer = requestContext?.pointee else { return }
        requestContext!.pointee = nil
        let daemon = Unmanaged<HTTPDaemon>.fromOpaque(context!).takeUnretainedValue()
        daemon.completed(Unmanaged<HTTPExchange>.fromOpaque(pointer).takeRetainedValue())
    }

    static let header: MHD_KeyValueIterator = { context, _, key, value in
        guard let key, let context else { return MHD_Result.YES }
        context.assumingMemoryBound(to: HeaderFields.self).pointee.add(name: key, value: value)
        return MHD_Result.YES
    }

    static let formPart: MHD_PostDataIterator = { context, _, key, filename, contentType, _, data, offset, size in
        let exchange = Unmanaged<HTTPExchange>.fromOpaque(context!).takeUnretainedValue()
        guard exchange.refusal == nil else { return MHD_Result.NO }
        let chunk = UnsafeBufferPointer(
            start: data.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) }, count: data == nil ? 0 : size)
        do throws(FormParts.Refusal) {
            try exchange.form?.receive(
                name: key.map { String(cString: $0) } ?? "", filename: filename.map { String(cString: $0) },
                contentType: contentType.map { String(cString: $0) }, chunk: chunk, offset: offset)
            return MHD_Result.YES
        } catch {
            exchange.refusal = APIError(formRefusal: error)
            return MHD_Result.NO
        }
    }

    static let readEvents: MHD_ContentReaderCallback = { context, _, buffer, capacity in
        let stream = Unmanaged<EventStream>.fromOpaque(context!).takeUnretainedValue()
        return stream.read(into: buffer!, capacity: capacity)
    }

    static let releaseEvents: MHD_ContentReaderFreeCallback = { context in
        Unmanaged<EventStream>.fromOpaque(context!).release()
    }

    static let releaseShared: MHD_ContentReaderFreeCallback = { context in
        Unmanaged<SharedBytes>.fromOpaque(context!).release()
    }
}

extension APIError {
    /// The answer to a form refused while it was read.
    init(formRefusal: FormParts.Refusal) {
        switch formRefusal {
        case .tooManyParts(let limit): self = .badRequest("the form has more than \(limit) parts")
        case .partTooLarge(let name, let limit): self = .tooLarge("the form field \"\(name)\" is larger than \(limit) bytes")
        case .bodyTooLarge(let limit): self = .tooLarge("the form is larger than \(limit) bytes")
        }
    }
}

extension HTTPResponse {
    /// The JSON error answer for `error`.
    static func error(_ error: APIError) -> HTTPResponse {
        var response = HTTPResponse.json(errorJSON(error), status: error.status, headers: error.headers.map { ($0.name, $0.value) })
        response.cause = error.cause
        return response
    }

    /// `{"error": {"kind": …, "message": …}}` on one line.
    static func errorJSON(_ error: APIError) -> String {
        var writer = JSONWriter()
        writer.object { json in
            json.key("error")
            json.object { json in
                json.field("kind", error.kind)
                json.field("message", error.message)
            }
        }
        return writer.text
    }
}
