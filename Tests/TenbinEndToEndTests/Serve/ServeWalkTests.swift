import Foundation
import TenbinKit
import Testing

extension ServeEndToEndTests {
    /// Walks through the real server while votes move posters: seeded random walks (popular
    /// order and search by popularity, with votes between pages and from another connection
    /// all along) show every poster exactly once (docs/http-api.md, what a walk promises).
    @Suite(.timeLimit(.minutes(10))) struct ServeWalkTests {
        /// A seeded sequence of choices (Knuth's 64-bit linear congruential steps, high bits),
        /// so a failing walk can be replayed.
        struct Seeded {
            var state: UInt64
            mutating func next(upTo bound: Int) -> Int {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Int((state >> 33) % UInt64(bound))
            }
        }

        static func vote(_ server: ServeProcess, _ id: Int, times: Int) throws {
            let reply = try server.postJSON("/api/v1/posters/\(id)/votes", "{\"side\": 1, \"times\": \(times)}")
            #expect(reply.status == 200, "\(reply.text)")
        }

        @Test func seededWalksShowEveryPosterOnceWhileVotesMoveThem() throws {
            let server = try ServeProcess(["--no-rate-limit"])
            let count = 24
            for index in 0..<count { try ServeAPITests.post(server, contents: "walker \(index)") }
            var random = Seeded(state: 30)
            for id in 1...count where random.next(upTo: 2) == 0 { try Self.vote(server, id, times: 1 + random.next(upTo: 4)) }
            // Another connection votes all along, never waiting for the walks.
            let walking = Locked(true)
            let stopped = DispatchSemaphore(value: 0)
            let voter = Thread {
                defer { stopped.signal() }
                var random = Seeded(state: 99)
                while walking.withLock({ $0 }) {
                    _ = try? server.postJSON(
                        "/api/v1/posters/\(1 + random.next(upTo: count))/votes", "{\"side\": 2, \"times\": \(1 + random.next(upTo: 30))}")
                }
            }
            voter.start()
            defer { walking.withLock { $0 = false } }
            for seed: UInt64 in 1...6 {
                var random = Seeded(state: seed)
                let limit = 1 + random.next(upTo: 6)
                let base = seed % 2 == 0 ? "/api/v1/posters?sort=popular" : "/api/v1/search?q=walker&sort=popular"
                var walked: [Int] = []
                var path = base + "&limit=\(limit)"
                var pages = 0
                while pages <= count {
                    let reply = try server.request("GET", path)
                    #expect(reply.status == 200, "\(reply.text)")
                    walked += (reply.json["posters"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
                    pages += 1
                    // Votes between pages too: a jump of dozens, or a few.
                    for _ in 0..<random.next(upTo: 3) {
                        try Self.vote(server, 1 + random.next(upTo: count), times: random.next(upTo: 3) == 0 ? 50 : 1)
                    }
                    guard let next = reply.json["next"] as? String else { break }
                    path = base + "&limit=\(limit)&cursor=\(next)"
                }
                #expect(walked.sorted() == Array(1...count), "seed \(seed), \(base), limit \(limit): each poster exactly once")
            }
            walking.withLock { $0 = false }
            // The voter ends within its request in flight (bounded, so a stuck server fails
            // the test instead of hanging it).
            #expect(stopped.wait(timeout: .now() + 60) == .success)
        }
    }
}
