import TenbinKit

/// Everything `tenbin serve` is started with.
public struct ServerConfiguration: Sendable {
    /// `HOST:PORT` to listen on; port 0 lets the system choose.
    public var listen: String = "127.0.0.1:8080"
    /// `HOST:PORT` of a second listener that serves only `/metrics`, `/healthz` and `/readyz`,
    /// to whoever reaches it; `/metrics` then leaves the main address. Nil: `/metrics` is on
    /// the main address, for loopback peers only.
    public var metricsListen: String?
    /// The admin token for edits and deletes; nil turns both off over HTTP.
    public var adminToken: String?
    /// libmicrohttpd worker threads (each with its own epoll set).
    public var threads: Int = max(4, 2 * ServerConfiguration.cores)
    /// Threads of the board executor, where every blocking store call runs (reads that miss
    /// the read cache, searches, posts, edits, deletes).
    public var boardThreads: Int = max(4, 2 * ServerConfiguration.cores)
    /// The most bytes a request body may have (a new poster's form).
    public var maximumUploadBytes: Int = 25 << 20
    /// How fast one client may vote.
    public var voteRate = Rate(perSecond: 10, burst: 40)
    /// How fast one client may post.
    public var postRate = Rate(perSecond: 0.2, burst: 5)
    /// Off for trusted networks and benchmarks.
    public var rateLimited = true
    /// The URLs the board is published under (`https://board.example`): the host names it
    /// answers besides IP addresses and `localhost`, and the origins its writes may come from.
    public var publicURLs: [String] = []
    /// Read the client's address from `X-Forwarded-For` (set by a proxy in front).
    public var trustProxy = false
    /// The most connections open at once.
    public var maximumConnections = 10_000
    /// The most connections open at once from one address (0: no limit; off behind a proxy).
    public var maximumConnectionsPerAddress = 256
    /// The most live feeds open at once.
    public var maximumFeeds = 4096
    /// Seconds a connection may stay idle.
    public var idleTimeoutSeconds = 30
    /// Seconds a connection has to send a request's line and header fields.
    public var headerTimeoutSeconds = 10
    /// How often live feeds get a heartbeat comment.
    public var heartbeat: Duration = .seconds(15)
    /// How long live feeds outlast a database that does not answer (a restart): the board's
    /// ``LiveFeeds/Options/grace``, which `tenbin serve` opens the board with.
    public var feedGrace: Duration = LiveFeeds.Options().grace
    /// Bytes of encoded thumbnails kept in memory.
    public var thumbnailCacheBytes = 64 << 20
    /// Bytes of encoded JSON reads (pages, search pages, posters) kept for the store's current
    /// version; 0 turns the cache off.
    public var readCacheBytes = 16 << 20
    /// The most posts being re-encoded at once; more are answered 503.
    public var maximumPostsInProgress = max(2, ServerConfiguration.cores)
    /// The leading zero bits a post's proof of work must reach (`--post-proof BITS`); nil asks
    /// for none.
    public var postProofBits: Int?
    /// Seconds a post-proof challenge stays good.
    public var postProofLifetime: Int64 = 600
    /// Log lines as JSON objects.
    public var logJSON = false
    /// Where log lines go (each ends in a newline); nil for no log.
    public var log: (@Sendable (String) -> Void)?

    /// Cores online.
    static var cores: Int { Machine.activeCores }

    /// A configuration with the defaults.
    public init() {}
}
