import Dispatch
import TenbinKit
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
        options: [
            .init(names: ["--listen"], value: "HOST:PORT", help: "Address to listen on (default 127.0.0.1:8080; port 0 picks one)."),
            .init(names: ["--admin-token-file"], value: "FILE", help: "Enables PATCH and DELETE for requests with this bearer token."),
            .init(names: ["--threads"], value: "N", help: "HTTP worker threads, 1 to 256 (default twice the cores, at least 4)."),
            .init(names: ["--max-upload-mb"], value: "MB", help: "Largest request body (a new poster), 1 to 1024 MiB (default 25)."),
            .init(names: ["--vote-rate"], value: "PER_SECOND[/BURST]", help: "Votes per client address (default 10/40)."),
            .init(names: ["--post-rate"], value: "PER_SECOND[/BURST]", help: "New posters per client address (default 0.2/5)."),
            .init(names: ["--no-rate-limit"], value: nil, help: "No rate limits (trusted networks, benchmarks)."),
            .init(names: ["--trust-proxy"], value: nil, help: "Take the client address from X-Forwarded-For (behind a proxy)."),
            .init(names: ["--max-connections-per-ip"], value: "N", help: "Open connections per client address, 0 for no limit (default 256)."),
            .init(names: ["--log-json"], value: nil, help: "Log one JSON object per request instead of a text line."),
        ] + ImageOptions.options,
        discussion: """
            Prints the URL it listens on, then logs one line per request to standard error. The
            default address is loopback: binding to another address puts the board on that
            network. Ctrl-C or SIGTERM stops it gracefully (exit 0). See docs/http-api.md.
            """
    )

    static func run(_ arguments: ParsedArguments, context: Context) throws -> Int32 {
        try arguments.expectPositionals(0...0)
        let (limits, encoding) = try ImageOptions.parse(arguments)
        var configuration = ServerConfiguration(storePath: context.storePath)
        configuration.limits = limits
        configuration.encoding = encoding
        configuration.listen = arguments.value("--listen") ?? "127.0.0.1:8080"
        configuration.threads = try arguments.integer("--threads", in: 1...256, default: configuration.threads)
        configuration.maximumUploadBytes = try arguments.integer("--max-upload-mb", in: 1...1024, default: 25) << 20
        configuration.voteRate = try rate(arguments, "--vote-rate", default: configuration.voteRate)
        configuration.postRate = try rate(arguments, "--post-rate", default: configuration.postRate)
        configuration.rateLimited = !arguments.flag("--no-rate-limit")
        configuration.trustProxy = arguments.flag("--trust-proxy")
        configuration.maximumConnectionsPerAddress = try arguments.integer(
            "--max-connections-per-ip", in: 0...100_000, default: configuration.maximumConnectionsPerAddress)
        configuration.logJSON = arguments.flag("--log-json")
        configuration.log = { line in _ = FileDescriptor.writeAll(line, to: STDERR_FILENO) }  // a closed stderr only loses log lines
        if let path = arguments.value("--admin-token-file") {
            configuration.adminToken = try AdminToken.read(path: path)
        }
        let server = try Server(configuration)
        Output.line("Serving \(context.storePath) at \(server.url)")
        _ = fflush(nil)  // the URL must reach a pipe's reader now, not at exit
        waitForStopSignal()
        server.stop()
        return 0
    }

    /// `PER_SECOND[/BURST]`.
    private static func rate(_ arguments: ParsedArguments, _ name: String, default fallback: Rate) throws -> Rate {
        guard let text = arguments.value(name) else { return fallback }
        guard let rate = Rate(text) else {
            throw UsageError("'\(name)' takes PER_SECOND or PER_SECOND/BURST (like 10 or 0.5/5), not '\(text)'", command: spec)
        }
        return rate
    }

    /// Blocks until SIGINT or SIGTERM arrives.
    private static func waitForStopSignal() {
        let stop = DispatchSemaphore(value: 0)
        let sources = [SIGINT, SIGTERM].map { number in
            _ = signal(number, SIG_IGN)  // the dispatch source receives it instead; cannot fail for these signals
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            return source
        }
        stop.wait()
        for source in sources { source.cancel() }
    }
}
