import TenbinKit

/// How fast one client may do something: `perSecond` on average, up to `burst` at once.
public struct Rate: Sendable, Equatable, CustomStringConvertible {
    /// Tokens added per second.
    public var perSecond: Double
    /// The most tokens a client can save up.
    public var burst: Int

    /// A rate of `perSecond` with bursts of `burst`.
    public init(perSecond: Double, burst: Int) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// Parses `PER_SECOND[/BURST]` (`10`, `0.5/5`); the burst defaults to the rate rounded up
    /// (at least 1). Nil when the text is not one.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let rate = Double(parts[0]), rate.isFinite, rate > 0, rate <= 1_000_000 else { return nil }
        let burst: Int
        if parts.count == 2 {
            guard let value = Int(parts[1]), (1...1_000_000).contains(value) else { return nil }
            burst = value
        } else {
            burst = max(1, Int(rate.rounded(.up)))
        }
        self.init(perSecond: rate, burst: burst)
    }

    public var description: String { "\(perSecond)/\(burst)" }
}

/// Token buckets per client address: a request takes as many tokens as it costs (one post, or the votes it adds); a client with too few left is
/// told how long to wait. The table is bounded: when it is full, buckets that have refilled
/// (which a fresh bucket equals) are dropped.
final class RateLimiter: Sendable {
    let rate: Rate
    let maximumClients: Int
    private let now: @Sendable () -> Double
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }
    // The buckets are read and written only under this lock.
    private let buckets = Locked<[String: Bucket]>([:])

    /// Buckets filling at `rate`; `now` gives seconds on a monotonic clock.
    init(rate: Rate, maximumClients: Int = 100_000, now: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds) {
        self.rate = rate
        self.maximumClients = maximumClients
        self.now = now
    }

    /// How many clients have a bucket now.
    var clientCount: Int {
        buckets.withLock { $0.count }
    }

    /// Takes `cost` tokens for `client`, all or none: nil when allowed, else the whole
    /// seconds to wait until that many are there (a cost above the burst can never be paid:
    /// the wait is then for a full bucket, and the request must ask for less).
    func take(_ client: String, cost: Int = 1) -> Int? {
        let time = now()
        let cost = Double(max(1, cost))
        return buckets.withLock { buckets in
            var bucket = refilled(buckets[client], at: time)
            defer {
                if buckets.count >= maximumClients, buckets[client] == nil { prune(&buckets, at: time) }
                buckets[client] = bucket
            }
            guard bucket.tokens >= cost else { return wait(for: min(cost, Double(rate.burst)) - bucket.tokens) }
            bucket.tokens -= cost
            return nil
        }
    }

    /// Whether `client` has a token left, without taking it: nil when it has, else the whole
    /// seconds to wait for one.
    func waitForOne(_ client: String) -> Int? {
        let time = now()
        return buckets.withLock { buckets in
            let bucket = refilled(buckets[client], at: time)
            return bucket.tokens >= 1 ? nil : wait(for: 1 - bucket.tokens)
        }
    }

    /// `bucket` (a full one for a new client) with the tokens earned since it was updated.
    private func refilled(_ bucket: Bucket?, at time: Double) -> Bucket {
        var bucket = bucket ?? Bucket(tokens: Double(rate.burst), updated: time)
        bucket.tokens = min(Double(rate.burst), bucket.tokens + (time - bucket.updated) * rate.perSecond)
        bucket.updated = time
        return bucket
    }

    /// Whole seconds (at least 1) until `missing` tokens have been earned.
    private func wait(for missing: Double) -> Int {
        max(1, Int((missing / rate.perSecond).rounded(.up)))
    }

    /// Drops the buckets that are full again; when none is, the oldest half.
    private func prune(_ buckets: inout [String: Bucket], at time: Double) {
        let refill = Double(rate.burst) / rate.perSecond
        buckets = buckets.filter { time - $0.value.updated < refill }
        if buckets.count >= maximumClients {
            let cut = buckets.values.map(\.updated).sorted()[buckets.count / 2]
            buckets = buckets.filter { $0.value.updated > cut }
        }
    }

    /// Seconds on the monotonic clock.
    static let monotonicSeconds: @Sendable () -> Double = {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
    private static let start = ContinuousClock.now
}
