import Foundation
import TenbinKit
import Testing

/// `GET /api/v1/posters/{id}/timeline` in process: buckets that add up to the poster's counts
/// in every size, a cached answer that the next vote replaces, and its errors.
@Suite struct TimelineRoutesTests {
    /// The buckets of a timeline answer.
    static func buckets(_ reply: TestReply) -> [[String: Any]]? {
        reply.json["buckets"] as? [[String: Any]]
    }

    /// The sums of a timeline answer's two sides.
    static func totals(_ reply: TestReply) -> (Int, Int) {
        let buckets = Self.buckets(reply) ?? []
        return (buckets.reduce(0) { $0 + ($1["good1"] as? Int ?? 0) }, buckets.reduce(0) { $0 + ($1["good2"] as? Int ?? 0) })
    }

    @Test func aTimelineAddsUpToThePostersCountsInEveryBucketSizeAndFollowsVotes() async throws {
        let server = try TestServer { $0.rateLimited = false }
        await server.post()
        let empty = await server.request("GET", "/api/v1/posters/1/timeline")
        #expect(empty.status == 200)
        #expect(Self.buckets(empty)?.isEmpty == true, "\(empty.text)")
        #expect(await server.vote(1, side: 1, times: 3).status == 200)
        #expect(await server.vote(1, side: 2, times: 2).status == 200)
        for size in ["minute", "hour", "day"] {
            let reply = await server.request("GET", "/api/v1/posters/1/timeline?bucket=\(size)")
            #expect(reply.status == 200, "\(size): \(reply.text)")
            #expect(reply.header("content-type") == "application/json; charset=utf-8")
            #expect(Self.totals(reply) == (3, 2), "\(size): \(reply.text)")
            let width: Int64 = size == "minute" ? 60 : size == "hour" ? 3600 : 86_400
            for bucket in Self.buckets(reply) ?? [] {
                let start = try #require(bucket["start"] as? String)
                let date = try #require(ISO8601DateFormatter().date(from: start), "\(start)")
                #expect(Int64(date.timeIntervalSince1970) % width == 0, "\(size): \(start)")
                #expect(bucket.keys.sorted() == ["good1", "good2", "start"])
            }
        }
        // The cached answer gives way to the next vote's.
        #expect(await server.vote(1, side: 2).status == 200)
        #expect(Self.totals(await server.request("GET", "/api/v1/posters/1/timeline?bucket=day")) == (3, 3))
    }

    @Test func aBadBucketIs400AndAnUnknownPosterIs404() async throws {
        let server = try TestServer()
        await server.post()
        let bad = await server.request("GET", "/api/v1/posters/1/timeline?bucket=week")
        #expect(bad.status == 400, "\(bad.text)")
        #expect(bad.errorKind == "invalid_input")
        #expect(bad.errorMessage == "bucket must be minute, hour or day", "\(bad.text)")
        for path in ["/api/v1/posters/2/timeline", "/api/v1/posters/abc/timeline?bucket=day", "/api/v1/posters/1/timeline/x"] {
            let missing = await server.request("GET", path)
            #expect(missing.status == 404, "\(path)")
            #expect(missing.errorKind == "not_found", "\(path)")
        }
        let post = await server.request("POST", "/api/v1/posters/1/timeline", json: "{}")
        #expect(post.status == 405)
        #expect(post.header("allow") == "GET, HEAD")
    }
}
