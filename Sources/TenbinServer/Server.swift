import TenbinKit

#if canImport(Glibc)
    import Glibc
#endif

/// `tenbin serve`: a board on HTTP — the JSON API under `/api/v1`, live feeds as server-sent
/// events, images and thumbnails, the web page, health and metrics.
public final class Server: Sendable {
    /// What the server was started with.
    public let configuration: ServerConfiguration
    let app: Application
    private let daemon: HTTPDaemon
    /// The port the server listens on.
    public let port: UInt16
    /// The URL to print.
    public let url: String

    /// Starts serving `board` (whatever its backend). Throws when the listen address is not
    /// one or cannot be bound.
    public init(_ configuration: ServerConfiguration, board: Board) throws {
        guard let address = ListenAddress(configuration.listen) else {
            throw ServerError(
                "--listen must be IPV4:PORT, [IPV6]:PORT or a host name that resolves to loopback (localhost:PORT), not \"\(configuration.listen)\""
            )
        }
        self.configuration = configuration
        do {
            try board.checkBlobFolder(creating: true)
        } catch {
            throw ServerError(
                "cannot serve: \(error); the blob folder must exist and be writable by the user tenbin runs as (\(Self.user))")
        }
        app = Application(configuration: configuration, gateway: BoardGateway(board: board))
        app.startChangeWatch()
        let daemon = HTTPDaemon(
            handler: Router(app: app, routes: app.routes), headerTimeout: .seconds(configuration.headerTimeoutSeconds),
            idleTimeout: .seconds(configuration.idleTimeoutSeconds))
        self.daemon = daemon
        app.exchangesInProgress.withLock { $0 = { [weak daemon] in daemon?.exchanges.withLock { $0.count } ?? 0 } }
        var options = HTTPDaemonOptions(address: address, threads: configuration.threads)
        options.connectionLimit = configuration.maximumConnections
        // Behind a proxy every connection comes from the proxy's address.
        options.perAddressLimit = configuration.trustProxy ? 0 : configuration.maximumConnectionsPerAddress
        options.timeoutSeconds = configuration.idleTimeoutSeconds
        do {
            port = try daemon.start(options)
        } catch {
            app.stop()
            throw error
        }
        url = address.url(port: port)
    }

    /// Stops gracefully (a drain): no new connections, live feeds closed, requests already
    /// received given up to `grace` to be answered (votes after their batch commits), requests
    /// arriving meanwhile on open connections refused with 503, every answer closing its
    /// connection; then every connection closed.
    public func stop(grace: Duration = .seconds(3)) {
        app.feeds.stopAll()
        daemon.stop(grace: grace)
        app.stop()
        // Every exchange has ended and queued its line: write them (unless the log is stuck).
        app.log?.finish(timeout: .seconds(2))
    }
}

extension Server {
    /// The user this process runs as: `name (uid N)`.
    static var user: String {
        let uid = geteuid()
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return "\(String(cString: name)) (uid \(uid))"
    }
}

/// A server that cannot start.
public struct ServerError: Error, CustomStringConvertible, KindedError {
    public let description: String
    public var kind: ErrorKind { .invalidInput }

    init(_ description: String) {
        self.description = description
    }
}
