#if canImport(Glibc)
    import Glibc
#endif

/// The names a server answers for, and the origins its writes may come from: what stops DNS
/// rebinding. A page on another site whose name the attacker points at 127.0.0.1 reaches the
/// board with that name in `Host` (and in `Origin`); it is not one of the board's, and the
/// request is answered 421 before anything is read or done.
///
/// Answered `Host`s: an IP address or `localhost` (any port: no page of another site can be
/// served under one, so a rebound name never arrives as one), and the hosts of
/// `--public-url`. Behind a trusted proxy without `--public-url`, every host: the proxy's
/// `server_name` decides what reaches the server.
///
/// A write's `Origin` (or `Referer`) must be a `--public-url` origin exactly (scheme, host,
/// port), or name the very host and port the request was sent to, over `http` (tenbin speaks
/// no TLS itself; behind a trusted proxy, which may, `https` too).
struct PublicOrigins: Sendable, Equatable {
    /// One origin: scheme, host (lowercased; an IPv6 address in brackets) and port.
    struct Origin: Sendable, Equatable, CustomStringConvertible {
        var scheme: String
        var host: String
        var port: UInt16

        /// `http://host:port`, the port left out when it is the scheme's default.
        var description: String { "\(scheme)://\(host)" + (port == Self.defaultPort(scheme) ? "" : ":\(port)") }

        static func defaultPort(_ scheme: String) -> UInt16 { scheme == "https" ? 443 : 80 }

        /// Parses an `http(s)://host[:port][/…]` URL; nil for anything else (user info, `null`,
        /// other schemes, a bad port).
        init?(url: String) {
            let lowered = url.lowercased()
            let scheme: String
            let rest: Substring
            if lowered.hasPrefix("http://") {
                (scheme, rest) = ("http", lowered.dropFirst(7))
            } else if lowered.hasPrefix("https://") {
                (scheme, rest) = ("https", lowered.dropFirst(8))
            } else {
                return nil
            }
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            guard !authority.contains("@"), let (host, port) = Self.split(authority, scheme: scheme) else { return nil }
            self.init(scheme: scheme, host: host, port: port)
        }

        init(scheme: String, host: String, port: UInt16) {
            self.scheme = scheme
            self.host = host
            self.port = port
        }

        /// `host[:port]` as a `Host` header or a URL's authority writes it (lowercase), the
        /// port defaulting to `scheme`'s; nil when it is malformed.
        static func split(_ authority: Substring, scheme: String) -> (String, UInt16)? {
            let host: Substring
            var portText: Substring = ""
            if authority.hasPrefix("[") {
                guard let close = authority.firstIndex(of: "]") else { return nil }
                host = authority[...close]
                let after = authority[authority.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":") else { return nil }
                    portText = after.dropFirst()
                }
            } else if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
            guard !host.isEmpty, !host.contains(":") || host.hasPrefix("[") else { return nil }
            if portText.isEmpty { return (String(host), defaultPort(scheme)) }
            guard portText.utf8.count <= 5, portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let port = UInt16(portText) else {
                return nil
            }
            return (String(host), port)
        }
    }

    /// The origins of `--public-url`.
    var published: [Origin] = []
    /// Behind a trusted proxy: `https` origins pass too, and without `--public-url` any host.
    var behindProxy = false

    /// The origins of `--public-url` values; the first malformed one is an error.
    static func make(publicURLs: [String], trustProxy: Bool) -> Result<PublicOrigins, ServerError> {
        var origins = PublicOrigins(behindProxy: trustProxy)
        for url in publicURLs {
            guard let origin = Origin(url: url), url.lowercased().hasPrefix(origin.description) else {
                return .failure(ServerError("--public-url must be http(s)://HOST[:PORT], not \"\(url)\""))
            }
            origins.published.append(origin)
        }
        return .success(origins)
    }

    /// Whether a request sent with this `Host` (or, behind a trusted proxy, `X-Forwarded-Host`)
    /// is answered.
    func allows(host: String?) -> Bool {
        if behindProxy && published.isEmpty { return true }
        guard let host, let (name, _) = Origin.split(host.lowercased()[...], scheme: "http") else { return false }
        if Self.isLocal(name) { return true }
        let lowered = host.lowercased()[...]
        return published.contains { origin in
            Origin.split(lowered, scheme: origin.scheme).map { $0 == origin.host && $1 == origin.port } ?? false
        }
    }

    /// Whether a write's `Origin` (or `Referer`) URL is this server's.
    func allows(origin url: String, host: String?) -> Bool {
        guard let origin = Origin(url: url) else { return false }
        if published.contains(origin) { return true }
        guard origin.scheme == "http" || behindProxy, let host,
            let (name, port) = Origin.split(host.lowercased()[...], scheme: origin.scheme)
        else { return false }
        return name == origin.host && port == origin.port && (Self.isLocal(name) || (behindProxy && published.isEmpty))
    }

    /// Whether a host is an IP address (IPv6 in brackets) or `localhost`.
    static func isLocal(_ host: String) -> Bool {
        if host == "localhost" { return true }
        var probe = in6_addr()
        if host.hasPrefix("["), host.hasSuffix("]") { return inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &probe) == 1 }
        return inet_pton(AF_INET, host, &probe) == 1
    }
}
