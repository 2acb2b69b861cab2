import TenbinKit

/// The server's application state: the board's gateway, the caches, limiters, feeds, metrics
/// and log every route's handler works with, and the route table (``routes``) that the
/// ``Router`` serves.
final class Application: Sendable {
    let configuration: ServerConfiguration
    let gateway: BoardGateway
    let policy: RequestPolicy
    let metrics = Metrics()
    let log: RequestLogWriter?
    let feeds: FeedHub
    let thumbnails: Thumbnails
    /// Posters' preview cards, `/p/ID/card.jpg`.
    let previewCards: PreviewCards
    /// Encoded answers of the cached reads until the store changes.
    let readCache: ReadCache
    /// Where blocking work runs (store reads that miss the cache, writes, searches).
    let executor: BoardExecutor
    /// Each served blob's file and format.
    let blobFiles = BlobFiles()
    let voteLimiter: RateLimiter?
    let postLimiter: RateLimiter?
    /// Reports, at the posts' rate: mass false reports can hide posters, never delete them.
    let reportLimiter: RateLimiter?
    let voteAnswers = VoteAnswers()
    /// The `/admin` page's sessions.
    let adminSessions = AdminSessions()
    /// Posts being re-encoded now.
    let postsInProgress = Locked(0)
    /// Reads how many exchanges are in progress (set once the daemon exists).
    let exchangesInProgress = Locked<(@Sendable () -> Int)?>(nil)
    /// The last readiness probe's time and answer.
    let lastReadiness = Locked<(at: ContinuousClock.Instant, answer: HTTPResponse)?>(nil)
    /// The key post-proof challenges are signed with, read from the store at start when
    /// `--post-proof` is on (every server on one store shares it).
    let postProofKey: [UInt8]?
    /// The task that pushes the store's changes into the read cache.
    private let changeWatch = Locked<Task<Void, Never>?>(nil)

    /// Throws when a `--public-url` is not one, or when `--post-proof` is on and the store
    /// cannot give its key.
    init(configuration: ServerConfiguration, gateway: BoardGateway) throws {
        self.configuration = configuration
        self.gateway = gateway
        policy = RequestPolicy(
            adminToken: configuration.adminToken.map { Array($0.utf8) }, trustProxy: configuration.trustProxy,
            origins: try PublicOrigins.make(publicURLs: configuration.publicURLs, trustProxy: configuration.trustProxy).get())
        log = configuration.log.map {
            RequestLogWriter(format: RequestLog(json: configuration.logJSON, trustProxy: configuration.trustProxy), sink: $0)
        }
        feeds = FeedHub(maximumFeeds: configuration.maximumFeeds, heartbeat: configuration.heartbeat)
        thumbnails = Thumbnails(
            pipeline: gateway.imagePipeline(cacheLimits: CacheLimits(bytes: 32 << 20, count: 64)),
            cacheBytes: configuration.thumbnailCacheBytes)
        previewCards = PreviewCards(
            pipeline: gateway.imagePipeline(cacheLimits: CacheLimits(bytes: 16 << 20, count: 16)), cacheBytes: 16 << 20,
            storeFolder: gateway.derivedFilesFolder)
        readCache = ReadCache(maximumBytes: configuration.readCacheBytes)
        executor = BoardExecutor(threads: configuration.boardThreads)
        voteLimiter = configuration.rateLimited ? RateLimiter(rate: configuration.voteRate) : nil
        postLimiter = configuration.rateLimited ? RateLimiter(rate: configuration.postRate) : nil
        reportLimiter = configuration.rateLimited ? RateLimiter(rate: configuration.postRate) : nil
        postProofKey = configuration.postProofBits == nil ? nil : try gateway.postProofKey()
    }

    /// Every endpoint, declared once: path, policy and handler. docs/http-api.md describes each.
    var routes: [Route] {
        let upload = configuration.maximumUploadBytes
        let posterForm = FormLimits(
            maximumBytes: upload, maximumParts: 5 + PosterTextLimits.maximumHashtags,
            maximumFileBytes: min(upload, gateway.maximumImageBytes), maximumFieldBytes: PosterTextLimits.maximumContentsBytes)
        // The page's vote form: `side=1|2`, parsed by libmicrohttpd's urlencoded reader.
        let voteForm = FormLimits(maximumBytes: 1024, maximumParts: 4, maximumFileBytes: 0, maximumFieldBytes: 16)
        // The page's report menu without JavaScript: `reason` and `note`, urlencoded.
        let reportForm = FormLimits(maximumBytes: 4096, maximumParts: 2, maximumFileBytes: 0, maximumFieldBytes: 2048)
        // The /admin page's forms: a token, or a reason.
        let adminForm = FormLimits(maximumBytes: 4096, maximumParts: 1, maximumFileBytes: 0, maximumFieldBytes: 2048)
        let adminPageForm = RoutePolicy(bodies: [.urlencoded: .form(adminForm)], errors: .page)
        // A moderator's action: a JSON body with a reason, or none.
        let moderation = RoutePolicy(bodies: [.json: .bytes(4096), .none: .bytes(0)], admin: true)
        return [
            .cachedGet("/", RoutePolicy(errors: .page)) { [self] in try webPage($0) },
            .get("/language/{code}", RoutePolicy(errors: .page)) { try Self.switchLanguage($0) },
            // `{id}`, not `{id:poster}`: `/p/anything` is answered with a page too.
            .get("/p/{id}", RoutePolicy(errors: .page)) { [self] in try posterPage($0) },
            .get("/p/{id:poster}/card.jpg") { [self] in try posterCard($0) },
            .get("/t/{tag}", RoutePolicy(errors: .page)) { [self] in try tagPage($0) },
            .cachedGet("/api/v1/tags/{tag}") { [self] in try tag($0) },
            .get("/oembed") { [self] in try oembed($0) },
            .get("/static/{name}") { [self] in try staticFile($0) },
            .get("/healthz") { [self] _ in health() },
            .get("/readyz") { [self] _ in readiness() },
            .get("/metrics", RoutePolicy(loopbackOnly: true)) { [self] _ in .now(metricsText()) },
            .get("/blobs/{digest}") { [self] in try blob($0) },
            .get("/thumbs/{digest}") { [self] in try thumbnail($0) },
            .cachedGet("/api/v1/posters") { [self] in try page($0) },
            .write(
                .post, "/api/v1/posters",
                RoutePolicy(
                    bodies: [.multipart: .form(posterForm)], rate: .posts, errors: .pageForForms,
                    refused: { [metrics] in metrics.postRefused(PostRefusal($0)) },
                    precheck: { [self] head throws(APIError) in _ = try checkedPostProof(head) })
            ) { [self] in try newPoster($0, $1) },
            .get("/api/v1/post-proof") { [self] in try postProofChallenge($0) },
            .cachedGet("/api/v1/posters/{id:poster}") { [self] in try poster($0) },
            .cachedGet("/api/v1/posters/{id:poster}/timeline") { [self] in try timeline($0) },
            .write(.patch, "/api/v1/posters/{id:poster}", RoutePolicy(bodies: [.json: .bytes(APIInput.maximumJSONBytes)], admin: true)) {
                [self] in try edit($0, $1)
            },
            .write(.delete, "/api/v1/posters/{id:poster}", RoutePolicy(bodies: [.none: .bytes(0)], admin: true)) { [self] in
                try delete($0, $1)
            },
            .write(
                .post, "/api/v1/posters/{id:poster}/votes",
                RoutePolicy(bodies: [.json: .bytes(1024), .urlencoded: .form(voteForm)], rate: .votes, errors: .pageForForms)
            ) { [self] in try vote($0, $1) },
            .write(
                .post, "/api/v1/posters/{id:poster}/reports",
                RoutePolicy(bodies: [.json: .bytes(4096), .urlencoded: .form(reportForm)], rate: .reports, errors: .pageForForms)
            ) { [self] in try report($0, $1) },
            .get("/api/v1/admin/queue", RoutePolicy(admin: true)) { [self] in try moderationQueue($0) },
            .get("/api/v1/admin/posters/{id:poster}", RoutePolicy(admin: true)) { [self] in try moderationItem($0) },
            .write(.post, "/api/v1/admin/posters/{id:poster}/restore", moderation, moderate(.restore)),
            .write(.post, "/api/v1/admin/posters/{id:poster}/hide", moderation, moderate(.hide)),
            .write(.post, "/api/v1/admin/posters/{id:poster}/remove", moderation, moderate(.remove)),
            .get("/api/v1/admin/log", RoutePolicy(admin: true)) { [self] in try moderationLog($0) },
            .get("/admin", RoutePolicy(errors: .page)) { [self] in try adminPage($0) },
            .write(.post, "/admin/login", RoutePolicy(bodies: [.urlencoded: .form(adminForm)], errors: .page)) { [self] in
                try adminLogin($0, $1)
            },
            .write(.post, "/admin/logout", RoutePolicy(bodies: [.urlencoded: .form(adminForm), .none: .bytes(0)], errors: .page)) {
                [self] in try adminLogout($0, $1)
            },
            .write(.post, "/admin/posters/{id:poster}/restore", adminPageForm, adminPageAction(.restore)),
            .write(.post, "/admin/posters/{id:poster}/hide", adminPageForm, adminPageAction(.hide)),
            .write(.post, "/admin/posters/{id:poster}/remove", adminPageForm, adminPageAction(.remove)),
            .cachedGet("/api/v1/search") { [self] in try search($0) },
            .get("/api/v1/feed") { [self] in try feed($0) },
            .get("/api/v1/export.csv", RoutePolicy(admin: true)) { [self] in try export($0, format: .csv) },
            .get("/api/v1/export.jsonl", RoutePolicy(admin: true)) { [self] in try export($0, format: .jsonl) },
        ]
    }

    /// The paths the metrics address (`--metrics-listen`) serves.
    static let monitoringPaths: Set<String> = ["/metrics", "/healthz", "/readyz"]

    /// The routes of the main address: all of them, but `/metrics` when it has an address of
    /// its own (answered 404 here then, to everyone).
    var mainRoutes: [Route] {
        guard configuration.metricsListen != nil else { return routes }
        return routes.filter { "\($0.path)" != "/metrics" }
    }

    /// The routes of the metrics address: metrics, health and readiness, the same declarations
    /// as the main address's. Whoever reaches that address may read them: the operator chose
    /// it, so the loopback rule does not apply there.
    var monitoringRoutes: [Route] {
        routes.filter { Self.monitoringPaths.contains("\($0.path)") }.map { route in
            var open = route
            open.policy.loopbackOnly = false
            return open
        }
    }

    /// The limiter of a rate class, nil when rates are off.
    func limiter(_ rate: RateClass) -> RateLimiter? {
        switch rate {
        case .posts: postLimiter
        case .votes: voteLimiter
        case .reports: reportLimiter
        }
    }

    /// The 429 for a client with `wait` seconds to wait.
    func rateLimited(_ what: String, _ wait: Int, _ head: RequestHead) -> APIError {
        var error = APIError.rateLimited(what, retryAfter: wait)
        // Behind a proxy started without --trust-proxy every visitor is the proxy's address:
        // the log says so where the operator looks (the client reads the usual sentence).
        if !policy.trustProxy, head.header("x-forwarded-for") != nil {
            error.cause =
                "the request names X-Forwarded-For (a proxy in front?) but --trust-proxy is off: every client behind that proxy shares one address's rate limits"
        }
        return error
    }

    func finished(_ record: ExchangeRecord) {
        metrics.record(record)
        log?.log(record)
    }

    /// This server committed a write: cached reads go before its answer is sent.
    func committed() {
        readCache.invalidate()
    }

    /// The least time between two of the change watch's wakes.
    static let changeWatchSpacing = Duration.milliseconds(10)

    /// Starts pushing the store's changes into the read cache: reads are cached only while
    /// the watch listens. A change source that fails turns the cache off until it answers
    /// again.
    func startChangeWatch() {
        let task = Task.detached { [gateway, readCache] in
            while !Task.isCancelled {
                do {
                    var version = try gateway.changeVersion()
                    readCache.resume()
                    while !Task.isCancelled {
                        version = try await gateway.nextChange(after: version)
                        readCache.invalidate()
                        // Under a stream of commits, at most one wake per spacing: each wait
                        // costs a few task switches, and this server's own writes (nearly
                        // all of a busy stream) dropped the answers already. A commit by
                        // another process within the spacing is caught at its end.
                        try await Task.sleep(for: Self.changeWatchSpacing)
                    }
                } catch {
                    readCache.suspend()
                    try? await Task.sleep(for: .milliseconds(250))  // cancelled: the loop ends
                }
            }
        }
        changeWatch.withLock { $0 = task }
    }

    /// Stops the change watch and the executor (after the jobs already queued).
    func stop() {
        changeWatch.withLock { $0 }?.cancel()
        executor.stop()
    }

    static func bytes(_ body: RequestBody) -> [UInt8] {
        if case .bytes(let bytes) = body { return bytes }
        return []
    }
}
