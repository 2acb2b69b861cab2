import Dispatch
import TenbinKit
import TenbinPostgres
import TenbinSQLite
import TenbinServer

#if canImport(Glibc)
    import Glibc
#endif

/// `tenbin serve [--listen 127.0.0.1:8080] [--admin-token-file FILE] [--threads N] [--max-upload-mb MB] …`
enum ServeCommand: Command {
    static let spec = CommandSpec(
        name: "serve",
        abstract: "Serve the board over HTTP: a JSON API, live feeds, images and a web page.",
        usage: "[--listen HOST:PORT] [--admin-token-file FILE] [--threads N] [--max-upload-mb MB] [OPTIONS]",
        discussion: """
            Prints the URL it listens on, then logs one line per request to standard error (or to
            --log-file, reopened on SIGHUP). The default address is loopback: binding to another
            address puts the board on that network. Ctrl-C or SIGTERM stops it gracefully, answering
            the requests it has (exit 0). See docs/http-api.md and docs/operations.md.
            """
    )

    struct Options: OptionGroup {
        var listen = Option.text(
            ["--listen"], value: "HOST:PORT",
            help: "Address to listen on; port 0 picks one; localhost works.",
            default: ServerConfiguration().listen)
        var metricsListen = Option.text(
            ["--metrics-listen"], value: "HOST:PORT",
            help: "Serve /metrics, /healthz and /readyz here, to anyone; /metrics then leaves --listen.")
        var adminTokenFile = Option.text(
            ["--admin-token-file"], value: "FILE", help: "Enables PATCH and DELETE for requests bearing the token in FILE.")
        var threads = Option.integer(
            ["--threads"], value: "N", help: "HTTP worker threads, 1 to 256.", in: 1...256,
            default: ServerConfiguration().threads, shown: "twice the cores, at least 4")
        var maxUploadMB = Option.integer(
            ["--max-upload-mb"], value: "MB", help: "Largest request body (a new poster), 1 to 1024 MiB.", in: 1...1024,
            default: ServerConfiguration().maximumUploadBytes >> 20)
        var voteRate = Option<Rate>.rate(
            ["--vote-rate"], help: "Votes per client address.", default: ServerConfiguration().voteRate)
        var postRate = Option<Rate>.rate(
            ["--post-rate"], help: "New posters per client address.", default: ServerConfiguration().postRate)
        var reportThreshold = Option.integer(
            ["--report-threshold"], value: "N", help: "Distinct reporters that hide a poster until a moderator acts, 1 to 1000.",
            in: 1...1000, default: Board.defaultReportThreshold)
        var postProof = Option.integer(
            ["--post-proof"], value: "BITS",
            help: "Ask every post for a proof of work of BITS leading zero bits, 1 to 30 (18 suits phones; 0 is off).", in: 0...30,
            default: 0, shown: "off")
        var noRateLimit = Flag(["--no-rate-limit"], help: "No rate limits (trusted networks, benchmarks).")
        var publicURL = Option.repeated(
            ["--public-url"], value: "URL",
            help:
                "A URL the board is published under (https://board.example), repeatable: the only names it answers besides IP addresses and localhost."
        )
        var trustProxy = Flag(["--trust-proxy"], help: "Take the client address from X-Forwarded-For (behind a proxy).")
        var maxConnectionsPerIP = Option.integer(
            ["--max-connections-per-ip"], value: "N", help: "Open connections per client address, 0 for no limit.",
            in: 0...100_000, default: ServerConfiguration().maximumConnectionsPerAddress)
        var heartbeat = Option.integer(
            ["--heartbeat"], value: "SECONDS", help: "Seconds between heartbeats on live feeds, 1 to 300.", in: 1...300,
            default: Int(ServerConfiguration().heartbeat.components.seconds))
        var feedGrace = Option.integer(
            ["--feed-grace"], value: "SECONDS", help: "Seconds live feeds outlast a database outage, 0 to 3600.",
            in: 0...3600, default: Int(ServerConfiguration().feedGrace.components.seconds))
        var logJSON = Flag(["--log-json"], help: "Log one JSON object per request instead of a text line.")
        var logFile = Option.text(
            ["--log-file"], value: "PATH", help: "Append the log to PATH instead of standard error; SIGHUP reopens it.")
        var headerTimeout = Option.integer(
            ["--header-timeout"], value: "SECONDS", help: "Seconds a connection has to send a request's head, 1 to 300.",
            in: 1...300, default: ServerConfiguration().headerTimeoutSeconds)
        var replica = Option.repeated(
            ["--replica"], value: "URL",
            help: "A PostgreSQL hot standby of --database to send reads to, repeatable (see docs/postgres.md).")
        var replicaMaxLag = Option<Duration>.duration(
            ["--replica-max-lag"], help: "How far behind the primary a standby may fall and still be read from, 10ms to 1h.",
            in: .milliseconds(10) ... .seconds(3600), default: PostgresStore.defaultReplicaMaxLag, shown: "5s")
        var migrate = Flag(["--migrate"], help: "Upgrade a PostgreSQL database at an older schema first (see docs/postgres.md).")
        var image = ImageOptions()
        var scan = ScanOptions()
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        // A server reads the same pages again and again: through a memory map, not read() calls.
        SQLiteStore.mapDatabaseFiles(true)
        let (limits, encoding) = try ImageOptions.parse(arguments.image)
        var configuration = ServerConfiguration()
        configuration.listen = try arguments.listen
        configuration.metricsListen = try arguments.metricsListen
        configuration.threads = try arguments.threads
        configuration.maximumUploadBytes = try arguments.maxUploadMB << 20
        configuration.voteRate = try arguments.voteRate
        configuration.postRate = try arguments.postRate
        let postProof = try arguments.postProof
        configuration.postProofBits = postProof == 0 ? nil : postProof
        configuration.rateLimited = !arguments.noRateLimit
        configuration.trustProxy = arguments.trustProxy
        configuration.publicURLs = try arguments.publicURL
        configuration.maximumConnectionsPerAddress = try arguments.maxConnectionsPerIP
        configuration.heartbeat = .seconds(try arguments.heartbeat)
        configuration.feedGrace = .seconds(try arguments.feedGrace)
        configuration.logJSON = arguments.logJSON
        configuration.headerTimeoutSeconds = try arguments.headerTimeout
        let logFile = try (try arguments.logFile).map { path in try LogFile(path: path) }
        let log: @Sendable (String) -> Void =
            if let logFile {
                { line in logFile.write(line) }
            } else {
                { line in _ = FileDescriptor.writeAll(line, to: STDERR_FILENO) }  // a closed stderr only loses log lines
            }
        configuration.log = log
        if let path = try arguments.adminTokenFile {
            configuration.adminToken = try AdminToken.read(path: path)
        }
        // The signal handlers are in place before the URL is printed: a SIGTERM sent as soon as
        // the URL appears must not be lost.
        let stop = StopSignal()
        // SIGHUP reopens the log file (log rotation); without one it is only noted. Either way it
        // no longer ends the process, as its default action did.
        let hangUp = SignalSource(SIGHUP) {
            guard let logFile else {
                return log("\(LogTime.now()) SIGHUP ignored: no --log-file to reopen (the log goes to standard error)\n")
            }
            do {
                try logFile.reopen()
                log("\(LogTime.now()) SIGHUP: reopened the log file \(logFile.path)\n")
            } catch {
                log("\(LogTime.now()) SIGHUP: \(error); still writing to the file open before\n")
            }
        }
        defer { hangUp.cancel() }
        context.noteReadingsOff()
        var context = context
        try context.chooseReplicas(try arguments.replica, maxLag: try arguments.replicaMaxLag)
        let board = try context.board(
            .serve(migrate: arguments.migrate), limits: limits, encoding: encoding, live: LiveFeeds.Options(grace: configuration.feedGrace),
            reportThreshold: try arguments.reportThreshold, scanner: try ScanOptions.parse(arguments.scan))
        // Every live feed ends, then the store closes (and checkpoints) before tenbin exits;
        // also when the server cannot start.
        defer { board.close() }
        var server: Server? = try Server(configuration, board: board)
        Output.line("Serving \(SafeText.terminal(context.storePath)) at \(server!.url)")  // made just above
        if let metricsURL = server?.metricsURL { Output.line("Metrics, health and readiness at \(metricsURL)") }
        _ = fflush(nil)  // the URL must reach a pipe's reader now, not at exit
        stop.wait()
        // Stopping waits at most 3 s for requests in flight; should anything still hold it up,
        // the process ends anyway rather than ignore the signal.
        DispatchQueue.global().asyncAfter(deadline: .now() + 15) {
            Errors.write("Error: stopping the server took longer than 15 s; exiting without waiting further")
            _exit(1)
        }
        server?.stop()
        server = nil
        return 0
    }
}

extension Option where Value == Duration {
    /// A length of time within `range` — a number with `ms`, `s`, `m` or `h` (`500ms`, `1.5s`;
    /// seconds without a unit) — `fallback` when absent.
    static func duration(
        _ names: [String], help: String, in range: ClosedRange<Duration>, default fallback: Duration, shown: String
    ) -> Self {
        let info = CommandSpec.Option(names: names, value: "DURATION", help: CommandSpec.Option.help(help, default: shown))
        return Option(info: info) { texts throws(UsageError) in
            guard let text = texts.last else { return fallback }
            let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("", 1)]
            for unit in units where text.hasSuffix(unit.suffix) {
                guard let number = Double(text.dropLast(unit.suffix.count)), number.isFinite else { break }
                let duration = Duration.milliseconds(Int64((number * unit.seconds * 1000).rounded()))
                if range.contains(duration) { return duration }
                break
            }
            throw UsageError(
                "'\(info.primary)' takes a duration from 10ms to 1h (500ms, 5s, 2m), not '\(text)'")
        }
    }
}

/// A signal handled on a dispatch queue by `handler` (instead of its default action) until
/// cancelled.
final class SignalSource: Sendable {
    // The dispatch source; set once in init.
    private let source: Locked<(any DispatchSourceSignal)?> = Locked(nil)

    init(_ number: Int32, handler: @escaping @Sendable () -> Void) {
        let made = SignalHandler.install(number, handler)
        source.withLock { $0 = made }
    }

    func cancel() { source.withLock { $0?.cancel() } }
}

/// SIGINT and SIGTERM, caught from the moment this is made until `wait` returns.
final class StopSignal: Sendable {
    private let arrived = DispatchSemaphore(value: 0)
    // The dispatch sources, kept alive until `wait` returns; set once in init.
    private let sources: Locked<[any DispatchSourceSignal]> = Locked([])

    init() {
        let made = [SIGINT, SIGTERM].map { number in SignalHandler.install(number) { [arrived] in arrived.signal() } }
        sources.withLock { $0 = made }
    }

    /// Blocks until SIGINT or SIGTERM has arrived (at once if one came already).
    func wait() {
        arrived.wait()
        for source in sources.withLock({ $0 }) { source.cancel() }
    }
}

extension Option where Value == Rate {
    /// `PER_SECOND[/BURST]`, `fallback` when absent.
    static func rate(_ names: [String], help: String, default fallback: Rate) -> Self {
        let perSecond = fallback.perSecond == fallback.perSecond.rounded() ? "\(Int(fallback.perSecond))" : "\(fallback.perSecond)"
        let info = CommandSpec.Option(
            names: names, value: "PER_SECOND[/BURST]", help: CommandSpec.Option.help(help, default: "\(perSecond)/\(fallback.burst)"))
        return Option(info: info) { texts throws(UsageError) in
            guard let text = texts.last else { return fallback }
            guard let rate = Rate(text) else {
                throw UsageError("'\(info.primary)' takes PER_SECOND or PER_SECOND/BURST (like 10 or 0.5/5), not '\(text)'")
            }
            return rate
        }
    }
}
