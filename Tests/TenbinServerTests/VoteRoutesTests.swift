import Foundation
import TenbinKit
import Testing

@testable import TenbinServer

/// `POST /api/v1/posters/ID/votes` in process: its answers, its refusals, the same-origin rule
/// for writes and the per-client rate limits.
@Suite struct VoteRoutesTests {
    static let vote = #"{"side": 1}"#

    @Test func votesAnswerWithTheNewCountsAndBadVotesAreRefused() async throws {
        let server = try TestServer()
        await server.post()
        let first = await server.vote(1, side: 1)
        #expect(first.status == 200)
        #expect(first.json["good1"] as? Int == 1)
        let many = await server.vote(1, side: 2, times: 5)
        #expect(many.json["good2"] as? Int == 5)
        #expect(many.json["good1"] as? Int == 1)

        let cases: [(String, Int, String)] = [
            (#"{"side": 3}"#, 422, "side"), (#"{"side": "1"}"#, 422, "side"), (#"{}"#, 422, "side"),
            (#"{"side": 1, "times": 0}"#, 422, "times"), (#"{"side": 1, "times": 101}"#, 422, "times"),
            (#"{"side": 1, "times": 1.5}"#, 422, "times"), (#"{"side": 1, "extra": true}"#, 422, "extra"),
            (#"{"side": 1"#, 400, "JSON"), (#"[1]"#, 400, "object"), ("", 400, "JSON"),
            (String(repeating: "[", count: 500), 400, "JSON"),
        ]
        for (body, status, word) in cases {
            let reply = await server.request("POST", "/api/v1/posters/1/votes", json: body)
            #expect(reply.status == status, "\(body): \(reply.text)")
            #expect(reply.errorMessage?.contains(word) == true, "\(body): \(reply.text)")
        }
        let missing = await server.vote(42, side: 1)
        #expect(missing.status == 404)
        #expect(missing.errorKind == "not_found")
        let plain = await server.request(
            "POST", "/api/v1/posters/1/votes", headers: [("Content-Type", "text/plain")], body: .bytes(Array(Self.vote.utf8)))
        #expect(plain.status == 415)
        #expect(plain.errorKind == "unsupported_media_type")
        let untyped = await server.request("POST", "/api/v1/posters/1/votes", body: .bytes(Array(Self.vote.utf8)))
        #expect(untyped.status == 415)
        let large = await server.request(
            "POST", "/api/v1/posters/1/votes", json: #"{"side": 1, "pad": ""# + String(repeating: " ", count: 2000) + "\"}")
        #expect(large.status == 413)
        #expect(large.errorKind == "limit_exceeded")
        let final = await server.poster(1)
        #expect(final["good1"] as? Int == 1)
        #expect(final["good2"] as? Int == 5)
    }

    @Test func crossSiteWritesAreRefusedAndSameSiteOnesPass() async throws {
        let server = try TestServer()
        await server.post()
        let own = "http://127.0.0.1:8080"
        for (name, value) in [
            ("Origin", "http://evil.example"), ("Origin", "null"), ("Referer", "http://evil.example/page"),
            ("Origin", "http://127.0.0.1:1"),
        ] {
            let reply = await server.vote(1, side: 1, headers: [(name, value)])
            #expect(reply.status == 403, "\(name): \(value)")
            #expect(reply.errorKind == "forbidden")
        }
        #expect(await server.vote(1, side: 1, headers: [("Origin", own)]).status == 200)
        #expect(await server.vote(1, side: 1, headers: [("Referer", own + "/?q=x")]).status == 200)
        #expect(await server.vote(1, side: 1).status == 200)
        let post = await server.post(headers: [("Origin", "https://evil.example")])
        #expect(post.status == 403)
        #expect(await server.poster(1)["good1"] as? Int == 3)
        #expect(await server.request("GET", "/api/v1/posters").json["posters"].map { ($0 as? [Any])?.count } == 1)
    }

    @Test func votesAreRateLimitedPerClientAddress() async throws {
        let server = try TestServer { $0.voteRate = Rate(perSecond: 0.000_001, burst: 3) }
        await server.post()
        for _ in 0..<3 { #expect(await server.vote(1, side: 1).status == 200) }
        let limited = await server.vote(1, side: 1)
        #expect(limited.status == 429)
        #expect(limited.errorKind == "limit_exceeded")
        #expect(Int(limited.header("retry-after") ?? "") ?? 0 >= 1)
        // A proxy's forwarded address is ignored unless the proxy is trusted.
        let forwarded = await server.vote(1, side: 1, headers: [("X-Forwarded-For", "10.0.0.9")])
        #expect(forwarded.status == 429)
        #expect(await server.poster(1)["good1"] as? Int == 3)

        let proxied = try TestServer {
            $0.voteRate = Rate(perSecond: 0.000_001, burst: 1)
            $0.trustProxy = true
        }
        await proxied.post()
        #expect(await proxied.vote(1, side: 1, headers: [("X-Forwarded-For", "10.0.0.1")]).status == 200)
        #expect(await proxied.vote(1, side: 1, headers: [("X-Forwarded-For", "10.0.0.1")]).status == 429)
        #expect(await proxied.vote(1, side: 1, headers: [("X-Forwarded-For", "203.0.113.5, 10.0.0.2")]).status == 200)

        let open = try TestServer {
            $0.voteRate = Rate(perSecond: 0.000_001, burst: 1)
            $0.rateLimited = false
        }
        await open.post()
        for _ in 0..<5 { #expect(await open.vote(1, side: 2).status == 200) }
    }
}
