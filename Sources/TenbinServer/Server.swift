import CMicroHTTPD
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
    /// The listener of `--metrics-listen`, when given.
    private let monitoringDaemon: HTTPDaemon?
    /// The port the server listens on.
    public let port: UInt16
    /// The URL to print.
    public let url: String
    /// The metrics address's URL (`http://HOST:PORT/`), when it has one.
    public let metricsURL: String?

    /// A server allocates and frees the same sizes all day (a request's strings, a batch's
    /// rows, a kept blob of up to 1 MiB). By default the C allocator hands freed memory at the
    /// top of its heap back to the system past 128 KiB, and maps every block over 128 KiB on
    /// its own, so under load `brk` and `munmap` were 2 % of the server's CPU on votes (`perf`
    /// under wrk). Up to 64 MiB freed is kept for reuse instead, and blocks under 4 MiB come from
    /// the heap.
    private static func keepFreedMemory() {
        tb_http_keep_freed_memory(64 << 20, 4 << 20)
    }

    /// Starts serving `board` (whatever its backend). Throws when the listen address is not
    /// one or cannot be bound.
    public init(_ configuration: ServerConfiguration, board: Board) throws {
        let address = try Self.address(configuration.listen, option: "--listen")
        let monitoringAddress = try configuration.metricsListen.map { try Self.address($0, option: "--metrics-listen") }
        self.configuration = configuration
        Self.keepFreedMemory()
        do {
            try board.checkBlobFolder(creating: true)
        } catch {
            throw ServerError(
                "cannot serve: \(error); the blob folder must exist and be writable by the user tenbin runs as (\(Self.user))")
        }
        let app = try Application(configuration: configuration, gateway: BoardGateway(board: board))
        self.app = app
        app.startChangeWatch()
        let daemon = HTTPDaemon(
            handler: Router(app: app, routes: app.mainRoutes), headerTimeout: .seconds(configuration.headerTimeoutSeconds),
            idleTimeout: .seconds(configuration.idleTimeoutSeconds))
        self.daemon = daemon
        let monitoringDaemon = monitoringAddress.map { _ in
            HTTPDaemon(
                handler: Router(app: app, routes: app.monitoringRoutes), headerTimeout: .seconds(configuration.headerTimeoutSeconds),
                idleTimeout: .seconds(configuration.idleTimeoutSeconds))
        }
        self.monitoringDaemon = monitoringDaemon
        app.exchangesInProgress.withLock {
            $0 = { [weak daemon, weak monitoringDaemon] in
                (daemon?.exchangesInProgress ?? 0) + (monitoringDaemon?.exchangesInProgress ?? 0)
            }
        }
        var options = HTTPDaemonOptions(address: address, threads: configuration.threads)
        options.connectionLimit = configuration.maximumConnections
        // Behind a proxy every connection comes from the proxy's address.
        options.perAddressLimit = configuration.trustProxy ? 0 : configuration.maximumConnectionsPerAddress
        options.timeoutSeconds = configuration.idleTimeoutSeconds
        do {
            port = try daemon.start(options)
            if let monitoringDaemon, let monitoringAddress {
                // A scraper and a probe or two: one thread, a few connections.
                var monitoring = HTTPDaemonOptions(address: monitoringAddress, threads: 1)
                monitoring.connectionLimit = 64
                monitoring.perAddressLimit = 0
                monitoring.timeoutSeconds = configuration.idleTimeoutSeconds
                metricsURL = monitoringAddress.url(port: try monitoringDaemon.start(monitoring))
            } else {
                metricsURL = nil
            }
        } catch {
            daemon.stop(grace: .zero)
            app.stop()
            throw error
        }
        url = address.url(port: port)
    }

    /// The listen address `text` names, or the error naming `option`.
    private static func address(_ text: String, option: String) throws -> ListenAddress {
        guard let address = ListenAddress(text) else {
            throw ServerError(
                "\(option) must be IPV4:PORT, [IPV6]:PORT or a host name that resolves to loopback (localhost:PORT), not \"\(text)\""
            )
        }
        return address
    }

    /// Stops gracefully (a drain): no new connections, live feeds closed, requests already
    /// received given up to `grace` to be answered (votes after their batch commits), requests
    /// arriving meanwhile on open connections refused with 503, every answer closing its
    /// connection; then every connection closed.
    public func stop(grace: Duration = .seconds(3)) {
        app.feeds.stopAll()
        daemon.stop(grace: grace)
        // Metrics and readiness stay readable while the main address drains.
        monitoringDaemon?.stop(grace: .seconds(1))
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
