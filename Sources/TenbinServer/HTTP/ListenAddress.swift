#if canImport(Glibc)
    import Glibc
#endif

/// An IP address and port to listen on: `127.0.0.1:8080`, `[::1]:8080`, `0.0.0.0:80`, or a host
/// name that resolves to loopback (`localhost:8080`), which becomes its loopback address.
struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The address as written (an IPv4 dotted quad or an IPv6 address without brackets).
    let host: String
    /// The port; 0 lets the system choose one.
    let port: UInt16
    let isIPv6: Bool

    /// Parses `HOST:PORT`, with an IPv6 host in brackets; nil when it is not one. A host that is
    /// not an IP address is looked up (`/etc/hosts` first, as the system is configured) and
    /// accepted when it resolves to a loopback address, the IPv4 one when it has both: a name
    /// that resolves elsewhere could move the server onto a network when DNS changes.
    init?(_ text: String) {
        let host: Substring
        let portText: Substring
        let bracketed = text.hasPrefix("[")
        if bracketed {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !portText.isEmpty, portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let port = UInt16(portText) else { return nil }
        var probe = in6_addr()
        if inet_pton(bracketed ? AF_INET6 : AF_INET, String(host), &probe) == 1 {
            self.init(host: String(host), port: port, isIPv6: bracketed)
        } else if !bracketed, let loopback = Self.loopbackAddress(of: String(host)) {
            self.init(host: loopback.host, port: port, isIPv6: loopback.isIPv6)
        } else {
            return nil
        }
    }

    /// The loopback address `name` resolves to (IPv4 first), or nil when it resolves to none
    /// or to any address that is not loopback.
    private static func loopbackAddress(of name: String) -> (host: String, isIPv6: Bool)? {
        guard !name.isEmpty else { return nil }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(first) }
        var found: [(host: String, isIPv6: Bool)] = []
        for entry in sequence(first: first, next: { $0.pointee.ai_next }) {
            let text = describe(entry.pointee.ai_addr)
            guard text != "-" else { continue }
            found.append((text, entry.pointee.ai_family == AF_INET6))
        }
        let probes = found.map { ListenAddress(host: $0.host, port: 0, isIPv6: $0.isIPv6) }
        guard !probes.isEmpty, probes.allSatisfy(\.isLoopback) else { return nil }
        return found.first { !$0.isIPv6 } ?? found[0]
    }

    private init(host: String, port: UInt16, isIPv6: Bool) {
        self.host = host
        self.port = port
        self.isIPv6 = isIPv6
    }

    var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The URL of the server at this address with `port`.
    func url(port: UInt16) -> String { isIPv6 ? "http://[\(host)]:\(port)/" : "http://\(host):\(port)/" }

    /// Whether the address is a loopback one (127.0.0.0/8 or ::1).
    var isLoopback: Bool { isIPv6 ? host == "::1" : host.hasPrefix("127.") }

    /// Calls `body` with this address as a `sockaddr`.
    func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>) throws -> Result) rethrows -> Result {
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            _ = inet_pton(AF_INET6, host, &address.sin6_addr)  // checked in init
            return try withUnsafePointer(to: &address) { try $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        _ = inet_pton(AF_INET, host, &address.sin_addr)  // checked in init
        return try withUnsafePointer(to: &address) { try $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
    }

    /// The IP address (without port) of a peer, or "-" when unknown.
    static func describe(_ address: UnsafePointer<sockaddr>?) -> String {
        guard let address else { return "-" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var raw = inet.pointee.sin_addr
                return inet_ntop(AF_INET, &raw, &text, socklen_t(text.count)) == nil ? "-" : Self.string(text)
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet in
                var raw = inet.pointee.sin6_addr
                return inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count)) == nil ? "-" : Self.string(text)
            }
        default:
            return "-"
        }
    }

    private static func string(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
