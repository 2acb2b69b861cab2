import TenbinKit

/// The rules a state-changing request must meet before its body is read: same origin, the
/// right content type, the admin token where one is needed.
struct RequestPolicy: Sendable {
    /// The admin token, or nil when editing and deleting over HTTP are off.
    let adminToken: [UInt8]?
    /// Whether a proxy in front sets `X-Forwarded-For` (and `X-Forwarded-Host`).
    let trustProxy: Bool
    /// The names and origins the server answers for.
    let origins: PublicOrigins
    /// `Host`s already decided (``HostDecisions``).
    let hosts = HostDecisions()

    /// The rules of a server with `adminToken`, behind a trusted proxy or not, published under
    /// `origins` (by default none: answering IP addresses and `localhost`, or behind a trusted
    /// proxy every host).
    init(adminToken: [UInt8]?, trustProxy: Bool, origins: PublicOrigins? = nil) {
        self.adminToken = adminToken
        self.trustProxy = trustProxy
        self.origins = origins ?? PublicOrigins(behindProxy: trustProxy)
    }

    /// The client's address: the peer's, or behind a trusted proxy the last address the
    /// proxy appended to `X-Forwarded-For`.
    func clientAddress(_ head: RequestHead) -> String {
        guard trustProxy, let forwarded = Self.lastForwarded(head.header("x-forwarded-for")) else { return head.peerAddress }
        return forwarded
    }

    /// The last address of an `X-Forwarded-For` value (the one the proxy in front appended);
    /// nil when there is none.
    static func lastForwarded(_ header: String?) -> String? {
        guard let header, let last = header.split(separator: ",").last.map({ String($0.trimmingCharacters) }), !last.isEmpty
        else { return nil }
        return last
    }

    /// Refuses a state-changing request whose `Origin` (or, without one, `Referer`) names
    /// another site than the `Host` it was sent to. A request with neither (a program, curl)
    /// passes unless `required`: the rule is there to stop other sites' pages from acting
    /// through a browser, and a body an HTML form can send (the page's vote form) must come
    /// from a browser, which always names one.
    func checkSameOrigin(_ head: RequestHead, required: Bool = false) throws(APIError) {
        let claimed: String
        if let origin = head.header("origin") {
            claimed = origin
        } else if let referer = head.header("referer") {
            claimed = referer
        } else {
            guard !required else { throw .forbidden("a form must come from this server's page: the request names no Origin or Referer") }
            return
        }
        guard origins.allows(origin: claimed, host: host(head)) else {
            throw .forbidden("cross-site requests are refused: the request's origin is not this server")
        }
    }

    /// The host a request was sent to: its `Host`, or behind a trusted proxy the
    /// `X-Forwarded-Host` the proxy set.
    func host(_ head: RequestHead) -> String? {
        (trustProxy ? head.header("x-forwarded-host") : nil) ?? head.header("host")
    }

    /// Refuses (421) a request sent to a name this server is not published under (see
    /// ``PublicOrigins``): DNS rebinding.
    func checkHost(_ head: RequestHead) throws(APIError) {
        let allowed = host(head).map { host in hosts.allows(host) { origins.allows(host: $0) } } ?? origins.allows(host: nil)
        guard allowed else {
            throw APIError(
                status: 421, kind: "misdirected_request",
                message: "this server does not answer for the host this request names (its --public-url does not include it)")
        }
    }

    /// The `host[:port]` of an `http(s)://` URL; nil for anything else (including `null`).
    static func authority(of url: String) -> Substring? {
        let rest: Substring
        if url.hasPrefix("http://") {
            rest = url.dropFirst(7)
        } else if url.hasPrefix("https://") {
            rest = url.dropFirst(8)
        } else {
            return nil
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return authority.isEmpty || authority.contains("@") ? nil : authority
    }

    /// Whether the request comes from this machine itself and not through a proxy: a loopback
    /// peer and no `X-Forwarded-For` (a proxy on this machine forwards strangers' requests
    /// from a loopback address too).
    func isLocal(_ head: RequestHead) -> Bool {
        guard head.header("x-forwarded-for") == nil, head.header("forwarded") == nil else { return false }
        let peer = head.peerAddress
        return peer.hasPrefix("127.") || peer == "::1" || peer.hasPrefix("::ffff:127.")
    }

    /// Whether the request carries the admin token (`Authorization: Bearer`), compared in
    /// constant time; false when no token is set. Such requests are the operator's own (a script
    /// posting a thousand photos) and are not rate limited.
    func holdsAdminToken(_ head: RequestHead) -> Bool {
        guard let adminToken, let authorization = head.header("authorization"), authorization.hasPrefix("Bearer ") else {
            return false
        }
        return Self.constantTimeEqual(Array(authorization.dropFirst(7).trimmingCharacters.utf8), adminToken)
    }

    /// Requires `Authorization: Bearer <admin token>`; refuses everything when no token is set.
    func checkAdmin(_ head: RequestHead) throws(APIError) {
        guard let adminToken else {
            throw .forbidden("editing and deleting posters over HTTP are off on this server (no admin token is set)")
        }
        let challenge = [APIError.Header(name: "WWW-Authenticate", value: "Bearer realm=\"tenbin\"")]
        guard let authorization = head.header("authorization"), authorization.hasPrefix("Bearer ") else {
            throw APIError(
                status: 401, kind: "unauthorized", message: "this needs the admin token as Authorization: Bearer", headers: challenge)
        }
        guard Self.constantTimeEqual(Array(authorization.dropFirst(7).trimmingCharacters.utf8), adminToken) else {
            throw APIError(status: 401, kind: "unauthorized", message: "the admin token is wrong", headers: challenge)
        }
    }

    /// Compares without stopping at the first difference, so timing does not tell how much of
    /// a guess was right.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        HMAC.constantTimeEqual(a, b)
    }
}

/// The `Host`s a server has decided, each answer kept: a kept-alive client sends the same
/// name with every request, and parsing it each time (lowercasing, splitting the port,
/// `inet_pton`) was 3 % of a small blob's CPU under wrk. At most ``capacity`` names: a client
/// sending many different ones empties it, and it fills again.
final class HostDecisions: Sendable {
    static let capacity = 256
    private let decided = Locked<[String: Bool]>([:])

    /// Whether `host` is answered: the kept decision, or `decide`'s, then kept.
    func allows(_ host: String, decide: (String) -> Bool) -> Bool {
        if let known = decided.withLock({ $0[host] }) { return known }
        let allowed = decide(host)
        decided.withLock { decided in
            if decided.count >= Self.capacity { decided.removeAll(keepingCapacity: true) }
            decided[host] = allowed
        }
        return allowed
    }

    /// How many decisions are kept.
    var count: Int { decided.withLock { $0.count } }
}
