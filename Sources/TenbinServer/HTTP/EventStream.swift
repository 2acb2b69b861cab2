import CMicroHTTPD
import TenbinKit

/// The body of a server-sent event response: bytes a producer sends at any time, read by
/// libmicrohttpd whenever the connection can take more.
///
/// When the reader finds nothing to send it suspends the connection (a suspended connection
/// costs nothing while it waits); `send` resumes it. The `suspended` flag is kept under the
/// same lock as the buffer, so a connection is resumed exactly once per suspension and never
/// when it is not suspended (which libmicrohttpd does not allow).
///
/// A client that takes gzip gets one endless gzip member instead, each piece compressed and
/// flushed as it is sent (see ``GzipStream``), so every event still arrives at once.
final class EventStream: Sendable {
    private struct State {
        var buffer: [UInt8] = []
        /// Bytes of `buffer` already handed to the connection.
        var start = 0
        /// No more data will come: the reader ends the body once the buffer is drained.
        var finished = false
        /// The connection is suspended by the reader and waits for `send` or `finish`.
        var suspended = false
        /// The connection, once the response is queued; nil again when the exchange is over.
        var connection: OpaquePointer?
        /// The exchange is over (client gone or body ended): nothing is sent any more.
        var closed = false
        /// Runs once when the exchange is over.
        var onClose: (@Sendable () -> Void)?
        /// The client closed its end (``peerLeft()``): the connection is closed without
        /// sending what is queued.
        var peerGone = false
    }

    // Every field is read and written under this lock, which also orders the
    // suspend/resume calls.
    private let state = Locked(State())
    // The gzip stream of a compressed body; nil for a plain one, and once the body is over
    // (which frees zlib's memory at once). Held from compressing a piece until it is queued, so
    // pieces are queued in the order they were compressed; taken before `state`, never inside.
    private let encoder: Locked<GzipStream?>
    /// The most bytes waiting for a slow reader before the stream gives up on it.
    let maximumBuffered: Int
    /// Whether the body is gzip: the client asked for it and zlib had the memory.
    let isCompressed: Bool

    /// An open stream that holds at most `maximumBuffered` unsent bytes, compressed with gzip
    /// when `gzip` is set (see ``isCompressed``).
    init(maximumBuffered: Int = 1 << 20, gzip: Bool = false) {
        self.maximumBuffered = maximumBuffered
        let encoder = gzip ? GzipStream() : nil
        isCompressed = encoder != nil
        self.encoder = Locked(encoder)
    }

    /// Queues `text` for the client (compressed and flushed, for a gzip body, so the client can
    /// read it at once). Returns false when the stream is over, or when the client has fallen so
    /// far behind that the stream ends instead of buffering more.
    @discardableResult
    func send(_ text: String) -> Bool {
        guard isCompressed, !text.isEmpty else { return enqueue(text.utf8) }
        return encoder.withLock { encoder in
            guard let gzip = encoder, !isOver else { return false }  // no work for a body that is over
            guard let bytes = gzip.write(text.utf8) else {
                // zlib failed, which only a bug can cause: end the body (the client reconnects).
                encoder = nil
                end()
                return false
            }
            return enqueue(bytes)
        }
    }

    /// Ends the stream once what is queued has been sent (a gzip body with its trailer).
    func finish() {
        guard isCompressed else { return end() }
        encoder.withLock { encoder in
            if let trailer = encoder?.write([], last: true) { enqueue(trailer) }
            encoder = nil
            end()
        }
    }

    /// Queues bytes of the body; false when the stream is over or the client too far behind.
    @discardableResult
    private func enqueue(_ bytes: some Collection<UInt8>) -> Bool {
        state.withLock { state in
            guard !state.closed, !state.finished else { return false }
            guard state.buffer.count - state.start + bytes.count <= maximumBuffered else {
                Self.endWithoutSending(&state)
                return false
            }
            state.buffer.append(contentsOf: bytes)
            Self.resume(&state)
            return true
        }
    }

    /// Marks the body as ending once what is queued has been sent.
    private func end() {
        state.withLock { state in
            state.finished = true
            Self.resume(&state)
        }
    }

    /// The client has closed its end of the connection (``HangUpWatch``): what is queued is
    /// dropped and the connection resumed, so libmicrohttpd closes it now rather than at the
    /// next heartbeat.
    func peerLeft() {
        state.withLock { state in
            guard !state.closed else { return }
            state.peerGone = true
            Self.endWithoutSending(&state)
        }
    }

    /// Drops what is queued and ends the body (a client too far behind, or gone).
    private static func endWithoutSending(_ state: inout State) {
        state.finished = true
        state.buffer.removeAll()
        state.start = 0
        resume(&state)
    }

    /// Runs `handler` once when the exchange is over (at once if it already is).
    func onClose(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if state.closed { return true }
            state.onClose = handler
            return false
        }
        if runNow { handler() }
    }

    /// Whether the exchange is over.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Whether nothing more is sent: the exchange is over or the body is ending.
    private var isOver: Bool { state.withLock { $0.closed || $0.finished } }

    // MARK: The HTTP side

    /// Binds the stream to the connection its response was queued on.
    func attach(_ connection: OpaquePointer) {
        state.withLock { $0.connection = connection }
    }

    /// Copies queued bytes into `destination`: the count copied, 0 after suspending the
    /// connection when there is nothing yet, -1 at the end of the body, or -2 (close without
    /// ending the body) once the client has left.
    func read(into destination: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        state.withLock { state in
            if state.peerGone { return -2 }
            let available = state.buffer.count - state.start
            if available > 0 {
                let count = min(available, capacity)
                // `available > 0`, so the buffer is not empty and has a base address.
                state.buffer.withUnsafeBufferPointer { buffer in
                    UnsafeMutableRawPointer(destination).copyMemory(from: buffer.baseAddress! + state.start, byteCount: count)
                }
                state.start += count
                if state.start == state.buffer.count {
                    state.buffer.removeAll(keepingCapacity: true)
                    state.start = 0
                } else if state.start > 64 * 1024 {
                    state.buffer.removeFirst(state.start)
                    state.start = 0
                }
                return count
            }
            if state.finished || state.closed { return -1 }
            guard let connection = state.connection else { return -1 }
            // libmicrohttpd busy-loops on a reader that returns 0 without suspending.
            MHD_suspend_connection(connection)
            state.suspended = true
            return 0
        }
    }

    /// Called when the exchange is over: nothing is sent any more and the close handler runs.
    func detach() {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            state.closed = true
            state.connection = nil
            // A finished exchange cannot be suspended; the flag is cleared with it.
            state.suspended = false
            state.buffer = []
            defer { state.onClose = nil }
            return state.onClose
        }
        if isCompressed { encoder.withLock { $0 = nil } }
        handler?()
    }

    /// Resumes the connection when the reader suspended it (and only then).
    private static func resume(_ state: inout State) {
        guard state.suspended, let connection = state.connection else { return }
        state.suspended = false
        MHD_resume_connection(connection)
    }
}
