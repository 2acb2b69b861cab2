import TenbinKit

/// The sessions of the `/admin` page: a moderator logs in once with the admin token and is
/// then known by a random session id in an `HttpOnly`, `SameSite=Strict` cookie (`Secure`
/// when served over https). The server keeps each session's expiry, so a cookie kept past it,
/// or after the server restarted, or after logging out, opens nothing.
final class AdminSessions: Sendable {
    /// The cookie's name.
    static let cookie = "tenbin_admin"
    /// How long a session lasts after it is made.
    let lifetime: Duration
    /// The clock expiries are read on (tests pass their own).
    private let now: @Sendable () -> ContinuousClock.Instant
    /// The most sessions kept; the oldest goes first.
    private let maximum: Int
    /// Session id → expiry.
    private let sessions = Locked<[String: ContinuousClock.Instant]>([:])

    init(
        lifetime: Duration = .seconds(12 * 3600), maximum: Int = 1000,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.lifetime = lifetime
        self.maximum = maximum
        self.now = now
    }

    /// A new session's id: 32 random bytes, hex (the system's random source).
    func create() -> String {
        var random = SystemRandomNumberGenerator()
        let id = (0..<4).map { _ in String(random.next() as UInt64, radix: 16).leftPadded(to: 16) }.joined()
        let expiry = now() + lifetime
        sessions.withLock { sessions in
            if sessions.count >= maximum, let oldest = sessions.min(by: { $0.value < $1.value })?.key { sessions[oldest] = nil }
            sessions[id] = expiry
        }
        return id
    }

    /// Whether `id` names a session that has not expired (an expired one is forgotten).
    func isValid(_ id: String?) -> Bool {
        guard let id else { return false }
        let now = now()
        return sessions.withLock { sessions in
            guard let expiry = sessions[id] else { return false }
            guard now < expiry else {
                sessions[id] = nil
                return false
            }
            return true
        }
    }

    /// Ends a session.
    func end(_ id: String?) {
        guard let id else { return }
        _ = sessions.withLock { $0.removeValue(forKey: id) }
    }

    /// The session id a `Cookie` header carries, if any.
    static func id(inCookies header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters == cookie { return String(parts[1].trimmingCharacters) }
        }
        return nil
    }

    /// The `Set-Cookie` value of a session (`Secure` over https), or one that removes it.
    static func setCookie(_ id: String?, secure: Bool, lifetime: Duration) -> String {
        let value = id ?? ""
        let age = id == nil ? 0 : lifetime.components.seconds
        return "\(cookie)=\(value); Path=/admin; Max-Age=\(age); HttpOnly; SameSite=Strict\(secure ? "; Secure" : "")"
    }
}

extension String {
    /// The text with zeros in front up to `count` characters.
    fileprivate func leftPadded(to count: Int) -> String {
        String(repeating: "0", count: Swift.max(0, count - self.count)) + self
    }
}
