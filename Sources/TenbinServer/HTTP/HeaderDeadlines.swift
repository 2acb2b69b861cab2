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
    private struct Entry {
        let socket: Int32
        var deadline: ContinuousClock.Instant?
    }

    /// Seconds a connection has to send a request's line and header fields.
    let headerTimeout: Duration
    /// Seconds a kept-alive connection has to begin its next request.
    let idleTimeout: Duration
    // Open connections by address; every access is under this lock.
    private let entries = Locked<[UInt: Entry]>([:])
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

    /// Ends the tick.
    /// Connections open now.
    var openConnections: Int { entries.withLock { $0.count } }

    func stop() {
        timer.withLock { $0?.cancel() }
    }

    private static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection))) }

    /// A connection was accepted: its first request's head is due within `headerTimeout`.
    func opened(_ connection: OpaquePointer, socket: Int32) {
        guard socket >= 0 else { return }
        let deadline = ContinuousClock.now + headerTimeout
        entries.withLock { $0[Self.key(connection)] = Entry(socket: socket, deadline: deadline) }
    }

    /// A request line arrived: its header fields are due within `headerTimeout` (and never
    /// later than a deadline already running, the first request's since the connection opened).
    func requestLineArrived(_ connection: OpaquePointer) {
        let limit = ContinuousClock.now + headerTimeout
        entries.withLock { entries in
            guard let deadline = entries[Self.key(connection)]?.deadline else {
                entries[Self.key(connection)]?.deadline = limit
                return
            }
            entries[Self.key(connection)]?.deadline = min(deadline, limit)
        }
    }

    /// The request's head is complete: nothing is due until it has been answered.
    func headArrived(_ connection: OpaquePointer) {
        entries.withLock { $0[Self.key(connection)]?.deadline = nil }
    }

    /// A request was answered: a kept-alive connection's next request line is due within the
    /// idle timeout.
    func answered(_ connection: OpaquePointer) {
        let deadline = ContinuousClock.now + idleTimeout
        entries.withLock { entries in
            entries[Self.key(connection)]?.deadline = deadline
        }
    }

    /// The connection is closing; libmicrohttpd closes its socket after this returns.
    func closed(_ connection: OpaquePointer) {
        _ = entries.withLock { $0.removeValue(forKey: Self.key(connection)) }
    }

    private func closeLate() {
        let now = ContinuousClock.now
        entries.withLock { entries in
            for (key, entry) in entries {
                guard let deadline = entry.deadline, deadline <= now else { continue }
                // Shut down, not closed: the descriptor stays libmicrohttpd's to close. Fails
                // only when the peer has already gone, which ends the connection anyway.
                _ = shutdown(entry.socket, Int32(SHUT_RDWR))
                entries[key]?.deadline = nil
            }
        }
    }
}
