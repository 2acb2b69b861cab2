import TenbinKit

/// What the server keeps for one open connection, from libmicrohttpd's notice that it opened
/// to the one that it closes: held (retained) as the connection's socket context, so each
/// request's callbacks reach it without a lookup in a table shared by the I/O threads, and
/// what is the same for every request on it (the peer's address) is worked out once.
final class HTTPConnection: Sendable {
    struct State {
        /// When the request head owed is due (``HeaderDeadlines``); nil while none is owed.
        var deadline: ContinuousClock.Instant?
        /// The exchange in progress, from its request line to its end.
        var exchange: HTTPExchange?
    }

    /// The socket, libmicrohttpd's to close (``HeaderDeadlines`` only shuts it down).
    let socket: Int32
    /// The address of the peer (a proxy's, behind one), as ``ListenAddress/describe(_:)`` puts it.
    let peerAddress: String
    /// Touched by the connection's own thread and by the deadline tick and a stop.
    let state: Locked<State>

    init(socket: Int32, peerAddress: String, deadline: ContinuousClock.Instant?) {
        self.socket = socket
        self.peerAddress = peerAddress
        state = Locked(State(deadline: deadline))
    }

    /// The exchange in progress on this connection.
    var exchange: HTTPExchange? { state.withLock { $0.exchange } }
}
