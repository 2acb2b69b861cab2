import Dispatch
import TenbinKit

#if canImport(Glibc)
    import Glibc
#endif

/// Closes connections that are too slow to send a request's head, which libmicrohttpd 0.9.75
/// does not: its only timeout is for a connection silent in both directions, so a client
/// sending a byte a second kept a connection (and its memory) forever.
///
/// Each open connection has a deadline while it owes the server a request head: from the
/// moment it is accepted, `headerTimeout` for the request line and header fields together;
/// once a request has been answered on it, the idle timeout for the next request line to
/// arrive, then `headerTimeout` from that line for the header fields. A tick every quarter
/// second shuts down (`shutdown(SHUT_RDWR)`) the socket of each connection past its deadline;
/// libmicrohttpd then reads the end of the stream and closes the connection as if the client
/// had left. The socket stays libmicrohttpd's: it is only shut down, under the lock that the
/// close notification takes before libmicrohttpd closes the descriptor, so a descriptor number
/// reused by a newer connection is never touched.
final class HeaderDeadlines: Sendable {
    /// Seconds a connection has to send a request's line and header fields.
    let headerTimeout: Duration
    /// Seconds a kept-alive connection has to begin its next request.
    let idleTimeout: Duration
    // Open connections by identity: added and removed as they open and close (each request
    // changes only its own connection's deadline, under that connection's lock). Shutting a
    // socket down happens under this lock, which `closed` takes before libmicrohttpd closes it.
    private let open = Locked<[ObjectIdentifier: HTTPConnection]>([:])
    // The tick's source, kept to cancel it; set once in init.
    private let timer: Locked<(any DispatchSourceTimer)?> = Locked(nil)

    /// Starts the tick.
    init(headerTimeout: Duration, idleTimeout: Duration) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "tenbin.header-deadlines"))
        source.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250), leeway: .milliseconds(50))
        source.setEventHandler { [weak self] in self?.closeLate() }
        source.resume()
        timer.withLock { $0 = source }
    }

    deinit { stop() }

    /// Connections open now.
    var openConnections: Int { open.withLock { $0.count } }

    /// The exchanges in progress on the open connections.
    var exchanges: [HTTPExchange] { open.withLock { $0.values.compactMap(\.exchange) } }

    /// Ends the tick.
    func stop() {
        timer.withLock { $0?.cancel() }
    }

    /// A connection was accepted: its first request's head is due within `headerTimeout`
    /// (unless libmicrohttpd did not say what its socket is). Returns what is kept for it.
    func opened(socket: Int32, peerAddress: String) -> HTTPConnection {
        let connection = HTTPConnection(socket: socket, peerAddress: peerAddress, deadline: socket >= 0 ? .now + headerTimeout : nil)
        open.withLock { $0[ObjectIdentifier(connection)] = connection }
        return connection
    }

    /// A request line arrived: its header fields are due within `headerTimeout` (and never
    /// later than a deadline already running, the first request's since the connection opened).
    func requestLineArrived(_ connection: HTTPConnection) {
        let limit = ContinuousClock.now + headerTimeout
        connection.state.withLock { state in state.deadline = min(state.deadline ?? limit, limit) }
    }

    /// The request's head is complete: nothing is due until it has been answered.
    func headArrived(_ connection: HTTPConnection) {
        connection.state.withLock { $0.deadline = nil }
    }

    /// A request was answered: a kept-alive connection's next request line is due within the
    /// idle timeout.
    func answered(_ connection: HTTPConnection) {
        let deadline = ContinuousClock.now + idleTimeout
        connection.state.withLock { $0.deadline = deadline }
    }

    /// The connection is closing; libmicrohttpd closes its socket after this returns.
    func closed(_ connection: HTTPConnection) {
        _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    private func closeLate() {
        let now = ContinuousClock.now
        open.withLock { open in
            for connection in open.values {
                let late = connection.state.withLock { state -> Bool in
                    guard connection.socket >= 0, let deadline = state.deadline, deadline <= now else { return false }
                    state.deadline = nil
                    return true
                }
                // Shut down, not closed: the descriptor stays libmicrohttpd's to close. Fails
                // only when the peer has already gone, which ends the connection anyway.
                if late { _ = shutdown(connection.socket, Int32(SHUT_RDWR)) }
            }
        }
    }
}
