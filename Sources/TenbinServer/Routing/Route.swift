/// One endpoint, declared once as data: its method, its path with typed parameters, the policy
/// the router applies before the handler runs, and the handler. Adding an endpoint is one
/// declaration in ``Application/routes`` and one handler.
struct Route: Sendable {
    /// The method; a GET route answers HEAD too.
    let method: HTTPMethod
    /// The path, with its parameters.
    let path: PathPattern
    /// What the router checks and does around the handler (changed only for another
    /// listener's copy of the table, see ``Application/monitoringRoutes``).
    var policy: RoutePolicy
    /// What answers.
    let handler: Handler
    /// The route's name for metrics and the log (`GET /api/v1/posters/{id}`), made from the
    /// declaration, never written by hand.
    let label: String

    /// How a route answers.
    enum Handler: Sendable {
        /// From the request line, header fields and path alone: at once (memory only) or by
        /// handing blocking work to the board executor (``Reply/blocking(_:)``).
        case head(@Sendable (Request) throws -> Reply)
        /// After reading a body of a kind and size the policy admits.
        case body(@Sendable (Request, RequestBody) throws -> Reply)
        /// A read whose encoded answer the read cache keeps: answered from memory while the
        /// store has not changed, else produced on the board executor (never on an I/O
        /// thread) and kept. The cache key is the route, its path parameters and the raw query.
        case cachedRead(@Sendable (Request) throws -> CachedBody)
    }

    init(_ method: HTTPMethod, _ path: String, _ policy: RoutePolicy = RoutePolicy(), _ handler: Handler) {
        self.method = method
        self.path = PathPattern(path)
        self.policy = policy
        self.handler = handler
        label = "\(method.rawValue) \(self.path)"
    }

    /// A GET (and HEAD) route answered from its head.
    static func get(_ path: String, _ policy: RoutePolicy = RoutePolicy(), _ handler: @escaping @Sendable (Request) throws -> Reply)
        -> Route
    {
        Route(.get, path, policy, .head(handler))
    }

    /// A GET (and HEAD) route whose answers the read cache keeps.
    static func cachedGet(
        _ path: String, _ policy: RoutePolicy = RoutePolicy(), _ handler: @escaping @Sendable (Request) throws -> CachedBody
    ) -> Route {
        Route(.get, path, policy, .cachedRead(handler))
    }

    /// A route that reads a body (or, for DELETE, refuses one) before its handler runs.
    static func write(
        _ method: HTTPMethod, _ path: String, _ policy: RoutePolicy,
        _ handler: @escaping @Sendable (Request, RequestBody) throws -> Reply
    ) -> Route {
        Route(method, path, policy, .body(handler))
    }
}

/// The methods routes are declared with.
enum HTTPMethod: String, Sendable, CaseIterable {
    case get = "GET"
    case post = "POST"
    case patch = "PATCH"
    case delete = "DELETE"

    /// Whether a request's method is this one (HEAD asks what GET would answer).
    func matches(_ method: String) -> Bool {
        method == rawValue || (self == .get && method == "HEAD")
    }
}

/// A cached read's body and what it is.
struct CachedBody: Sendable {
    /// The encoded answer (JSON with its newline, or an HTML page).
    var bytes: [UInt8]
    /// An HTML page rather than JSON.
    var html = false
}

/// What the router checks and does around a route's handler, in one place (``Router``).
struct RoutePolicy: Sendable {
    /// The bodies the route reads, by kind, each within its limit; empty for routes that read
    /// none. A body of another kind is refused with 415 before a byte of it is read.
    var bodies: [BodyKind: BodyLimit] = [:]
    /// Which per-client budget the route spends (nil: none). Holders of the admin token spend
    /// none.
    var rate: RateClass? = nil
    /// Whether the admin token is required.
    var admin = false
    /// How errors are answered.
    var errors: ErrorStyle = .json
    /// Whether the router answers on loopback only (unless the operator gave the route an
    /// address of its own).
    var loopbackOnly = false
    /// Told of every error the route answers with, whoever found it (the router's checks, the
    /// body's reader, the handler, the executor): for metrics of refusals.
    var refused: (@Sendable (APIError) -> Void)? = nil
    /// A check of the request's head before its body is read and before its rate is spent
    /// (a post's proof of work).
    var precheck: (@Sendable (RequestHead) throws(APIError) -> Void)? = nil

    /// Whether the route changes state: same-origin checked, and never cached.
    var writes: Bool { !bodies.isEmpty }
}

/// The kind of a request's body, from its `Content-Type`.
enum BodyKind: Sendable, Hashable {
    /// `application/json`.
    case json
    /// `multipart/form-data`: a browser's or a program's form with files.
    case multipart
    /// `application/x-www-form-urlencoded`: what an HTML form sends without files. Only a
    /// browser on this server's page may send one (its origin is required), and it is answered
    /// with pages, not JSON.
    case urlencoded
    /// No body at all (a DELETE).
    case none

    /// The kind a `Content-Type` names; nil for any other type.
    init?(contentType: String?) {
        guard let contentType else {
            self = .none
            return
        }
        let type = contentType.mediaType
        if type.isEmpty {
            self = .none
        } else if type.equalsIgnoringASCIICase("application/json") {
            self = .json
        } else if type.equalsIgnoringASCIICase("multipart/form-data") {
            self = .multipart
        } else if type.equalsIgnoringASCIICase("application/x-www-form-urlencoded") {
            self = .urlencoded
        } else {
            return nil
        }
    }
}

/// The per-client budgets a route may spend.
enum RateClass: Sendable {
    /// New posters: one per request, taken before the body is read.
    case posts
    /// Votes: the handler spends as many as the request adds (``Request/spend(_:)``); a client
    /// with none left is refused before its body is read.
    case votes
    /// Reports: one per request, taken before the body is read.
    case reports
}

/// How a route answers its errors.
enum ErrorStyle: Sendable {
    /// `{"error": {…}}` always.
    case json
    /// A short HTML page (the route is a page).
    case page
    /// A page for a browser's own form (urlencoded, or multipart from a navigation that asks
    /// for HTML), JSON for programs.
    case pageForForms
}
