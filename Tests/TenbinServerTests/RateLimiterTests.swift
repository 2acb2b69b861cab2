import TenbinKit
import Testing

@testable import TenbinServer

/// The token buckets that limit votes and posts per client, on a clock the test moves by hand.
@Suite struct RateLimiterTests {
    /// A clock the test moves by hand.
    final class Clock: Sendable {
        let seconds = Locked(0.0)
        func advance(_ by: Double) { seconds.withLock { $0 += by } }
        func limiter(_ rate: Rate, maximumClients: Int = 100_000) -> RateLimiter {
            RateLimiter(rate: rate, maximumClients: maximumClients, now: { self.seconds.withLock { $0 } })
        }
    }

    @Test func aBucketAllowsItsBurstThenRefillsAtItsRate() {
        let clock = Clock()
        let limiter = clock.limiter(Rate(perSecond: 2, burst: 3))
        for _ in 0..<3 { #expect(limiter.take("a") == nil) }
        #expect(limiter.take("a") == 1)
        #expect(limiter.take("b") == nil, "each address has its own bucket")
        clock.advance(0.5)
        #expect(limiter.take("a") == nil)
        #expect(limiter.take("a") == 1)
        clock.advance(100)
        for _ in 0..<3 { #expect(limiter.take("a") == nil) }
        #expect(limiter.take("a") != nil, "a long pause refills to the burst, no more")
        let slow = clock.limiter(Rate(perSecond: 0.1, burst: 1))
        #expect(slow.take("a") == nil)
        #expect(slow.take("a") == 10)
    }

    @Test func theBucketTableStaysBounded() {
        let clock = Clock()
        let limiter = clock.limiter(Rate(perSecond: 1, burst: 1), maximumClients: 100)
        for index in 0..<1000 {
            _ = limiter.take("client-\(index)")
            clock.advance(0.001)
        }
        #expect(limiter.clientCount <= 100)
        #expect(limiter.take("client-999") != nil, "the newest buckets are kept")
    }

    /// A full table drops the buckets that have refilled (idle clients, which a fresh bucket
    /// equals) and keeps the ones still counting, so a client over its limit stays limited
    /// however many other clients come and go.
    @Test func aClientOverItsLimitStaysLimitedWhileIdleClientsComeAndGo() {
        let clock = Clock()
        // One token per 100 s: a bucket is full again 100 s after its last request.
        let limiter = clock.limiter(Rate(perSecond: 0.01, burst: 1), maximumClients: 10)
        for round in 0..<5 {
            // Everyone of the last round falls idle.
            clock.advance(200)
            // Eight clients pass by once, then fall idle.
            for visitor in 0..<8 { #expect(limiter.take("visitor-\(round)-\(visitor)") == nil) }
            clock.advance(200)
            // The hog spends its token and keeps asking, and another client is over its limit too.
            _ = limiter.take("hog")
            #expect(limiter.take("hog") != nil, "round \(round)")
            _ = limiter.take("other")
            #expect(limiter.take("other") != nil, "round \(round)")
            clock.advance(1)
            // A new client finds the table full: the idle visitors go, the limited clients stay.
            #expect(limiter.take("newcomer-\(round)") == nil)
            #expect(limiter.clientCount == 3, "round \(round): the hog, the other and the newcomer")
            #expect(limiter.take("hog") != nil, "round \(round): the hog is still limited")
            #expect(limiter.take("other") != nil, "round \(round)")
        }
    }
}
