/// Finds each request's route and applies its policy in one place, in one order: the path and
/// method (404, 405), loopback-only routes, the same-origin rule for writes, the admin token,
/// the body's kind (415), the client's budget (429); then the handler, its errors answered in
/// the route's style. Everything here runs on libmicrohttpd's I/O threads and answers from
/// memory: work that may block goes to the board executor (``Reply/blocking(_:_:)``).
final class Router: HTTPHandling {
    let app: Application
    /// The routes by number of path segments (at that position).
    private let routes: [[Route]]

    init(app: Application, routes: [Route]) {
        self.app = app
        let grouped = Dictionary(grouping: routes) { $0.path.segments.count }
        self.routes = (0...(grouped.keys.max() ?? 0)).map { grouped[$0] ?? [] }
    }

    func finished(_ record: ExchangeRecord) {
        app.finished(record)
    }

    func admit(_ head: RequestHead) -> Admission {
        let path = head.rawPath
        guard path.utf8.first == UInt8(ascii: "/") else {
            return .reply("unmatched", .now(.error(.badRequest("the request target must be a path"))))
        }
        do throws(APIError) {
            try app.policy.checkHost(head)
        } catch {
            return .reply("unmatched", .now(.error(error)))
        }
        let parts = Self.segments(of: path)
        var allowed: [String] = []
        var label = "unmatched"
        // A page's errors are pages; so is a browser's navigation to nothing.
        var page = head.wantsPage
        for route in parts.count < routes.count ? routes[parts.count] : [] {
            guard let parameters = route.path.match(parts) else { continue }
            if route.method.matches(head.method) { return admit(head, route, parameters) }
            if allowed.isEmpty { label = route.label }
            page = page || route.policy.errors == .page
            allowed += route.method == .get ? ["GET", "HEAD"] : [route.method.rawValue]
        }
        func answer(_ error: APIError) -> HTTPResponse { page ? .errorPage(error, back: "/") : .error(error) }
        guard allowed.isEmpty else { return .reply(label, .now(answer(.methodNotAllowed(head.method, allowed: allowed)))) }
        // Never the raw path: a crafted target must not come back in an answer.
        return .reply("unmatched", .now(answer(.notFound("nothing is at this path"))))
    }

    /// The segments of a path that starts with `/`, empty ones included (`/a//b/` is `a`, ``,
    /// `b`, ``): cut by byte, in one array.
    static func segments(of path: Substring) -> ArraySlice<Substring> {
        var parts: [Substring] = []
        parts.reserveCapacity(8)
        let bytes = path.utf8
        // `/` is ASCII, so every cut is on a character boundary.
        var start = bytes.index(after: bytes.startIndex)
        var index = start
        while index != bytes.endIndex {
            if bytes[index] == UInt8(ascii: "/") {
                parts.append(path[start..<index])
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        parts.append(path[start...])
        return parts[...]
    }

    /// The policy, then the handler.
    private func admit(_ head: RequestHead, _ route: Route, _ parameters: PathParameters) -> Admission {
        let policy = route.policy
        let kind = BodyKind(contentType: head.header("content-type"))
        // A form (which any page on any site can make a browser send) without Origin or Referer
        // came from no browser: a program's JSON sent without its type, as `curl -d` sends it.
        // It is told so in JSON, not with a page about forms.
        if kind == .urlencoded, policy.bodies[.json] != nil, !head.wantsPage, head.header("origin") == nil,
            head.header("referer") == nil
        {
            return .reply(route.label, .now(.error(.unsupportedMediaType(Self.accepted(policy)))))
        }
        var request = Request(
            head: head, parameters: parameters, client: app.policy.clientAddress(head), bodyKind: kind ?? .none, budget: nil,
            failure: HTTPResponse.error)
        if policy.errors == .page || (policy.errors == .pageForForms && request.answersWithPage) {
            let (back, language) = (head.returnPath, WebLanguage(head))
            request = request.with(failure: { HTTPResponse.errorPage($0, back: back, language: language) })
        }
        if let refused = policy.refused {
            let answer = request.failure
            request = request.with(failure: {
                refused($0)
                return answer($0)
            })
        }
        let failure = request.failure
        func refuse(_ error: APIError) -> Admission { .reply(route.label, .now(failure(error))) }
        if policy.loopbackOnly, !app.policy.isLocal(head) {
            return .reply(route.label, .now(.error(.notFound("nothing is at this path"))))
        }
        let limit: BodyLimit?
        do throws(APIError) {
            limit = try check(head, &request, policy, kind)
        } catch {
            return refuse(error)
        }
        switch route.handler {
        case .head(let handler):
            return .reply(route.label, Self.run(failure, invalidStatus: 400) { try handler(request) })
        case .cachedRead(let handler):
            return .reply(route.label, cachedRead(request, route, handler))
        case .body(let handler):
            // A write route always has a limit: its policy names the bodies it reads.
            return Admission(
                route: route.label,
                action: .read(limit ?? .bytes(0)) { [request] _, body in
                    if case .refused(let error) = body { return .now(failure(error)) }
                    return Self.run(failure, invalidStatus: 422) { try handler(request, body) }
                })
        }
    }

    /// The checks of a route's policy before a byte of the body is read; the body's limit.
    private func check(_ head: RequestHead, _ request: inout Request, _ policy: RoutePolicy, _ kind: BodyKind?) throws(APIError)
        -> BodyLimit?
    {
        guard policy.writes else {
            // The admin token guards reads too (an export, a moderation queue).
            if policy.admin { try app.policy.checkAdmin(head) }
            return nil
        }
        try app.policy.checkSameOrigin(head, required: kind == .urlencoded)
        if policy.admin { try app.policy.checkAdmin(head) }
        let limit: BodyLimit
        if policy.bodies.count == 1, let only = policy.bodies[.none] {
            limit = only  // no body is read: its type does not matter
        } else {
            guard let kind, let accepted = policy.bodies[kind] else { throw .unsupportedMediaType(Self.accepted(policy)) }
            limit = accepted
        }
        try policy.precheck?(head)
        if let rate = policy.rate, let limiter = app.limiter(rate), !app.policy.holdsAdminToken(head) {
            let budget = Request.Budget(limiter: limiter) { [app] wait in app.rateLimited(rate.what, wait, head) }
            switch rate {
            case .posts, .reports:
                if let wait = limiter.take(request.client, cost: 1) { throw budget.refusal(wait) }
            case .votes:
                // Spent by the handler, which knows how many; refused now when none is left.
                if let wait = limiter.waitForOne(request.client) { throw budget.refusal(wait) }
                request = request.with(budget: budget)
            }
        }
        return limit
    }

    /// The 415 message naming what the route reads.
    private static func accepted(_ policy: RoutePolicy) -> String {
        if policy.bodies[.multipart] != nil { return "the body must be multipart/form-data" }
        return "the body must be JSON sent with Content-Type: application/json"
    }

    /// A cached read: from memory while the store is unchanged, else produced on the board
    /// executor and kept.
    private func cachedRead(_ request: Request, _ route: Route, _ handler: @escaping @Sendable (Request) throws -> CachedBody)
        -> Reply
    {
        let cache = app.readCache
        // A page is kept once per language (its answer says `Vary: Accept-Language, Cookie`).
        let key = ReadCache.Key(
            route: route.label, parameters: request.parameters.values.map(\.value), query: String(request.head.rawQuery),
            language: route.policy.errors == .json ? "" : WebLanguage(request.head).rawValue)
        if let entry = cache.entry(key) { return .now(Application.readAnswer(entry, request.head, cache: cache, key: key)) }
        return app.executor.reply(failure: request.failure, invalidStatus: 400) {
            let ticket = cache.ticket()
            let entry = cache.store(try handler(request), for: key, ticket: ticket)
            return Application.readAnswer(entry, request.head, cache: cache, key: key)
        }
    }

    /// The handler's reply, or its error in the route's style.
    /// A board's invalid-input error is a bad query (400) on a read and an unprocessable body
    /// (422) on a write.
    static func run(_ failure: @Sendable (APIError) -> HTTPResponse, invalidStatus: Int, _ body: () throws -> Reply) -> Reply {
        do {
            return try body()
        } catch {
            return .now(failure(APIError(error, invalidStatus: invalidStatus)))
        }
    }
}

extension Request {
    fileprivate func with(failure: @escaping @Sendable (APIError) -> HTTPResponse) -> Request {
        Request(head: head, parameters: parameters, client: client, bodyKind: bodyKind, budget: budget, failure: failure)
    }

    fileprivate func with(budget: Budget) -> Request {
        Request(head: head, parameters: parameters, client: client, bodyKind: bodyKind, budget: budget, failure: failure)
    }
}

extension RateClass {
    /// What is counted, as a refusal names it.
    var what: String {
        switch self {
        case .posts: "posts"
        case .votes: "votes"
        case .reports: "reports"
        }
    }
}
