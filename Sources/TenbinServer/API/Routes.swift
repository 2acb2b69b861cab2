import TenbinKit

/// Maps each request to its route and answers it: the JSON API, live feeds, images, the web
/// page, health and metrics. Refusals that need no body (unknown path, wrong method, other
/// origin, rate, declared size) are answered before a byte of the body is read.
final class Routes: HTTPHandling {
    let configuration: ServerConfiguration
    let gateway: BoardGateway
    let policy: RequestPolicy
    let metrics = Metrics()
    let log: RequestLogWriter?
    let feeds: FeedHub
    let thumbnails: Thumbnails
    /// Encoded pages, search pages and posters of the store's current version.
    let readCache: ReadCache
    /// Each served blob's file and format.
    let blobFiles = BlobFiles()
    let voteLimiter: RateLimiter?
    let postLimiter: RateLimiter?
    let voteAnswers = VoteAnswers()
    /// Posts being re-encoded now.
    let postsInProgress = Locked(0)
    /// Reads how many exchanges are in progress (set once the daemon exists).
    let exchangesInProgress = Locked<(@Sendable () -> Int)?>(nil)

    init(configuration: ServerConfiguration, gateway: BoardGateway) {
        self.configuration = configuration
        self.gateway = gateway
        policy = RequestPolicy(adminToken: configuration.adminToken.map { Array($0.utf8) }, trustProxy: configuration.trustProxy)
        log = configuration.log.map {
            RequestLogWriter(format: RequestLog(json: configuration.logJSON, trustProxy: configuration.trustProxy), sink: $0)
        }
        feeds = FeedHub(maximumFeeds: configuration.maximumFeeds, heartbeat: configuration.heartbeat)
        thumbnails = Thumbnails(
            pipeline: gateway.imagePipeline(cacheLimits: CacheLimits(bytes: 32 << 20, count: 64)),
            cacheBytes: configuration.thumbnailCacheBytes)
        readCache = ReadCache(maximumBytes: configuration.readCacheBytes)
        voteLimiter = configuration.rateLimited ? RateLimiter(rate: configuration.voteRate) : nil
        postLimiter = configuration.rateLimited ? RateLimiter(rate: configuration.postRate) : nil
    }

    func finished(_ record: ExchangeRecord) {
        metrics.record(record)
        log?.log(record)
    }

    func admit(_ head: RequestHead) -> Admission {
        let parts = head.rawPath.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard head.rawPath.hasPrefix("/") else {
            return .reply("unmatched", .now(.error(.badRequest("the request target must be a path"))))
        }
        let p = Array(parts)
        func at(_ index: Int) -> Substring { index < p.count ? p[index] : "" }
        switch (p.count, at(0)) {
        case (1, ""):
            return get("GET /", head) { try self.webPage(head) }
        case (2, "static"):
            return get("GET /static/{name}", head) { try self.staticFile(String(p[1]), head) }
        case (1, "healthz"):
            return get("GET /healthz", head) { .later { await self.health() } }
        case (1, "metrics"):
            return get("GET /metrics", head) { .now(self.metricsText()) }
        case (2, "blobs"):
            return get("GET /blobs/{digest}", head) { .now(try self.blob(p[1], head)) }
        case (2, "thumbs"):
            return get("GET /thumbs/{digest}", head) { try self.thumbnail(p[1], head) }
        case (3...5, "api") where at(1) == "v1":
            return api(Array(p.dropFirst(2)), head)
        default:
            return notFound(head)
        }
    }

    /// The routes under `/api/v1/`.
    private func api(_ p: [Substring], _ head: RequestHead) -> Admission {
        switch (p.count, p[0]) {
        case (1, "posters"):
            if head.method == "POST" { return newPoster(head) }
            return get("GET /api/v1/posters", head, also: ["POST"]) { try self.page(head) }
        case (2, "posters"):
            guard let id = APIInput.posterID(p[1]) else { return notFound(head) }
            switch head.method {
            case "PATCH": return edit(id, head)
            case "DELETE": return delete(id, head)
            default:
                return get("GET /api/v1/posters/{id}", head, also: ["PATCH", "DELETE"]) { try self.poster(id, head) }
            }
        case (3, "posters") where p[2] == "votes":
            guard let id = APIInput.posterID(p[1]) else { return notFound(head) }
            return vote(id, head)
        case (1, "search"):
            return get("GET /api/v1/search", head) { try self.search(head) }
        case (1, "feed"):
            return get("GET /api/v1/feed", head) { try self.feed(head) }
        default:
            return notFound(head)
        }
    }

    private func notFound(_ head: RequestHead) -> Admission {
        .reply("unmatched", .now(.error(.notFound("nothing is at \(head.rawPath.prefix(200))"))))
    }

    /// A GET (or HEAD) route: 405 for other methods, the handler's answer or its error.
    private func get(_ route: String, _ head: RequestHead, also: [String] = [], _ body: () throws -> Reply)
        -> Admission
    {
        guard head.method == "GET" || head.method == "HEAD" else {
            return .reply(route, .now(.error(.methodNotAllowed(head.method, allowed: ["GET", "HEAD"] + also))))
        }
        do {
            return .reply(route, try body())
        } catch {
            return .reply(route, .now(.error(APIError(error, invalidStatus: 400))))
        }
    }

    /// The checks every state-changing request passes before its body is read.
    func guardWrite(
        _ head: RequestHead, json: Bool, admin: Bool, limiter: RateLimiter?, what: String, originRequired: Bool = false
    ) throws(APIError) {
        try policy.checkSameOrigin(head, required: originRequired)
        if admin { try policy.checkAdmin(head) }
        if json { try policy.checkJSONContentType(head) }
        if let limiter, !policy.holdsAdminToken(head), let wait = limiter.take(policy.clientAddress(head)) {
            var error = APIError.rateLimited(what, retryAfter: wait)
            // Behind a proxy started without --trust-proxy every visitor is the proxy's address:
            // the log says so where the operator looks (the client reads the usual sentence).
            if !policy.trustProxy, head.header("x-forwarded-for") != nil {
                error.cause =
                    "the request names X-Forwarded-For (a proxy in front?) but --trust-proxy is off: every client behind that proxy shares one address's rate limits"
            }
            throw error
        }
    }

    func write(
        _ route: String, _ head: RequestHead, allowed: String, json: Bool, admin: Bool = false, originRequired: Bool = false,
        limiter: RateLimiter? = nil, what: String = "requests", limit: BodyLimit,
        failure: @escaping @Sendable (APIError) -> HTTPResponse = HTTPResponse.error,
        then: @escaping @Sendable (RequestBody) throws(APIError) -> Reply
    ) -> Admission {
        guard head.method == allowed else { return .reply(route, .now(failure(.methodNotAllowed(head.method, allowed: [allowed])))) }
        do {
            try guardWrite(head, json: json, admin: admin, limiter: limiter, what: what, originRequired: originRequired)
        } catch {
            return .reply(route, .now(failure(error)))
        }
        return Admission(
            route: route,
            action: .read(limit) { _, body in
                do throws(APIError) {
                    if case .refused(let error) = body { throw error }
                    return try then(body)
                } catch {
                    return .now(failure(error))
                }
            })
    }

    static func bytes(_ body: RequestBody) -> [UInt8] {
        if case .bytes(let bytes) = body { return bytes }
        return []
    }

    /// Runs `work` off the server's threads; its error becomes the answer.
    static func later(
        failure: @escaping @Sendable (APIError) -> HTTPResponse = HTTPResponse.error,
        _ work: @escaping @Sendable () async throws -> HTTPResponse
    ) -> Reply {
        .later {
            do {
                return try await work()
            } catch {
                return failure(APIError(error))
            }
        }
    }
}
