import Dispatch
import Foundation
import TenbinKit
import TenbinSQLite
import Testing

@testable import TenbinServer

/// The route table and the policy the router applies, in process.
@Suite struct RouterTests {
    @Test func everyRouteIsCountedUnderItsDeclaredLabel() async throws {
        let server = try TestServer { $0.rateLimited = false }
        await server.post()
        let cases: [(String, String, String)] = [
            ("GET", "/", "GET /"), ("GET", "/api/v1/posters", "GET /api/v1/posters"),
            ("GET", "/api/v1/posters/1", "GET /api/v1/posters/{id}"), ("HEAD", "/api/v1/posters/1", "GET /api/v1/posters/{id}"),
            ("GET", "/api/v1/search?q=cats", "GET /api/v1/search"), ("GET", "/static/app.css", "GET /static/{name}"),
            ("PUT", "/api/v1/posters/1", "GET /api/v1/posters/{id}"), ("GET", "/nothing/here", "unmatched"),
        ]
        for (method, target, label) in cases {
            let reply = await server.request(method, target)
            #expect(reply.route == label, "\(method) \(target)")
        }
        let metrics = await server.request("GET", "/metrics").text
        #expect(metrics.contains(#"route="GET /api/v1/posters/{id}",status="200"} 2"#), "\(metrics)")
    }

    @Test func aPathThatNamesNothingIs404WithoutEchoingItAndAWrongMethodIs405WithAllow() async throws {
        let server = try TestServer { $0.rateLimited = false }
        await server.post()
        for target in [
            "/<script>alert(1)</script>", "/api/v1/posters/abc", "/api/v1/posters/0", "/api/v1/posters/1/votes/x", "/api/v2/posters",
        ] {
            let reply = await server.request("GET", target)
            #expect(reply.status == 404, "\(target)")
            #expect(reply.errorKind == "not_found")
            #expect(reply.errorMessage?.contains("script") == false && reply.errorMessage?.contains("abc") == false, "\(target)")
        }
        let put = await server.request("PUT", "/api/v1/posters/1")
        #expect(put.status == 405)
        #expect(put.header("Allow") == "GET, HEAD, PATCH, DELETE")
        let getVotes = await server.request("GET", "/api/v1/posters/1/votes")
        #expect(getVotes.status == 405)
        #expect(getVotes.header("Allow") == "POST")
        let head = await server.request("HEAD", "/api/v1/posters/1")
        #expect(head.status == 200, "GET routes answer HEAD")
    }

    @Test func aBodysKindIsItsMediaTypeInAnyCaseWithParametersAndSpacesAround() {
        let cases: [(String?, BodyKind?)] = [
            (nil, BodyKind.none), ("", BodyKind.none), ("  ", BodyKind.none), ("application/json", .json),
            ("Application/JSON ; charset=utf-8", .json), ("\tapplication/json\t", .json),
            (" multipart/form-data; boundary=x", .multipart), ("APPLICATION/X-WWW-FORM-URLENCODED", .urlencoded),
            ("application/jsonp", nil), ("application/jso", nil), ("text/plain", nil), ("application/json x", nil),
            // Only ASCII letters fold: a dotted capital I is not an i.
            ("appl\u{130}cation/json", nil), ("application/json\u{301}", nil),
        ]
        for (value, kind) in cases {
            #expect(BodyKind(contentType: value) == kind, "\(value ?? "nil")")
        }
        #expect(HTTPResponse(status: 200, headers: [("content-TYPE", "x")]).header("Content-Type") == "x")
        #expect(HTTPResponse(status: 200, headers: [("Content-Types", "x")]).header("Content-Type") == nil)
    }

    @Test func aPathIsCutAtEverySlashKeepingEmptySegments() {
        let cases: [(Substring, [Substring])] = [
            ("/", [""]), ("/a", ["a"]), ("/a/b", ["a", "b"]), ("/a//b/", ["a", "", "b", ""]), ("//", ["", ""]),
            ("/ねこ/%2F/x", ["ねこ", "%2F", "x"]),
        ]
        for (path, parts) in cases {
            #expect(Array(Router.segments(of: path)) == parts, "\(path)")
        }
    }

    @Test func aLiteralSegmentMatchesItsBytesExactly() {
        let path: Substring = "/api/votes/vote/Votes/ねこ/"
        let parts = Router.segments(of: path)
        #expect(parts.map { PathPattern.same($0, "votes") } == [false, true, false, false, false, false])
        #expect(PathPattern.same(parts[parts.endIndex - 2], "ねこ"))
        #expect(PathPattern.same(parts[parts.endIndex - 1], ""))
        #expect(!PathPattern.same(parts[parts.startIndex], ""))
    }

    @Test func aSecurityHeaderFollowsTheContentTypeInAnyCase() {
        let image = SecurityHeaders.complete(HTTPResponse(status: 200, headers: [("Content-Type", "Image/JPEG")]))
        #expect(image.header("Cross-Origin-Resource-Policy") == "cross-origin")
        let page = SecurityHeaders.complete(HTTPResponse(status: 200, headers: [("Content-Type", "TEXT/HTML; charset=utf-8")]))
        #expect(page.header("Cross-Origin-Opener-Policy") == "same-origin")
        #expect(page.header("Cross-Origin-Resource-Policy") == "same-origin")
        let json = SecurityHeaders.complete(HTTPResponse(status: 200, headers: [("Content-Type", "application/json")]))
        #expect(json.header("Cross-Origin-Opener-Policy") == nil)
        #expect(json.header("X-Content-Type-Options") == "nosniff")
    }

    @Test func everyAnswerCarriesTheSecurityHeadersOfWhatItIs() async throws {
        let server = try TestServer { $0.rateLimited = false }
        let posted = await server.post()
        let digest = try #require(((posted.json["images"] as? [[String: Any]])?.first?["digest"]) as? String)
        for target in ["/api/v1/posters", "/api/v1/posters/99", "/nothing", "/static/app.js", "/metrics"] {
            let reply = await server.request("GET", target)
            #expect(reply.header("X-Content-Type-Options") == "nosniff", "\(target)")
            #expect(reply.header("Cross-Origin-Resource-Policy") == "same-origin", "\(target)")
            #expect(reply.header("Cross-Origin-Opener-Policy") == nil, "\(target)")
        }
        let page = await server.request("GET", "/")
        #expect(page.header("Cross-Origin-Opener-Policy") == "same-origin")
        #expect(page.header("Permissions-Policy")?.contains("camera=()") == true)
        #expect(page.header("Cross-Origin-Resource-Policy") == "same-origin")
        let image = await server.request("GET", "/blobs/\(digest)")
        #expect(image.status == 200)
        #expect(image.header("Cross-Origin-Resource-Policy") == "cross-origin", "a shared poster's pictures may be shown elsewhere")
        #expect(image.header("X-Content-Type-Options") == "nosniff")
    }

    @Test func aRequestForAnotherNameIsMisdirectedBeforeAnythingIsDoneDNSRebinding() async throws {
        let server = try TestServer { $0.rateLimited = false }
        await server.post()
        let attacker = [("Host", "attacker.example:8080"), ("Origin", "http://attacker.example:8080")]
        let page = await server.request("GET", "/", headers: attacker)
        #expect(page.status == 421)
        #expect(page.errorKind == "misdirected_request")
        #expect(await server.vote(1, side: 1, headers: attacker).status == 421)
        #expect(await server.post(headers: attacker).status == 421)
        #expect(await server.request("GET", "/api/v1/posters/1").json["good1"] as? Int == 0, "nothing was counted")
        #expect((await server.request("GET", "/api/v1/posters").json["posters"] as? [Any])?.count == 1, "nothing was posted")
        // The server's own address over https is not this http server's origin.
        let https = await server.vote(1, side: 1, headers: [("Origin", "https://127.0.0.1:8080")])
        #expect(https.status == 403)
        #expect(await server.vote(1, side: 1, headers: [("Origin", "http://127.0.0.1:8080")]).status == 200)
        let published = try TestServer { $0.publicURLs = ["https://board.example"] }
        #expect(await published.request("GET", "/", headers: [("Host", "board.example")]).status == 200)
        #expect(await published.request("GET", "/", headers: [("Host", "attacker.example")]).status == 421)
    }

    @Test func noAnswerEchoesWhatTheRequestPathSaid() async throws {
        let server = try TestServer { $0.rateLimited = false }
        for target in [
            "/blobs/<b>hello</b>", "/thumbs/<b>hello</b>?w=160", "/static/<b>hello</b>", "/<b>hello</b>", "/api/v1/<b>hello</b>",
        ] {
            let reply = await server.request("GET", target)
            #expect(reply.status == 404, "\(target)")
            #expect(!reply.text.contains("hello"), "\(target): \(reply.text)")
        }
    }

    @Test func aVoteSpendsItsTimesFromTheClientsBudgetAllOrNothing() async throws {
        let server = try TestServer { $0.voteRate = Rate(perSecond: 0.000_001, burst: 40) }
        try #require(await server.post(headers: [("Authorization", "Bearer x")]).status == 201)
        for _ in 0..<3 { #expect(await server.vote(1, side: 1, times: 10).status == 200) }
        let over = await server.vote(1, side: 2, times: 11)
        #expect(over.status == 429, "10 votes are left, not 11")
        #expect(over.header("Retry-After") != nil)
        #expect(await server.vote(1, side: 2, times: 10).status == 200, "nothing of the refused request was spent")
        #expect(await server.vote(1, side: 2, times: 1).status == 429)
        let counts = await server.request("GET", "/api/v1/posters/1").json
        #expect(counts["good1"] as? Int == 30)
        #expect(counts["good2"] as? Int == 10, "a refused request counts nothing")
        #expect(await server.vote(1, side: 1, times: 40, peer: "10.0.0.9").status == 200, "another client has its own budget")
    }

    @Test func aVoteOfMoreTimesThanTheBurstIsRefusedEvenFromAFullBudget() async throws {
        let server = try TestServer { $0.voteRate = Rate(perSecond: 10, burst: 40) }
        await server.post()
        let reply = await server.vote(1, side: 1, times: 41)
        #expect(reply.status == 429)
        #expect(await server.vote(1, side: 1, times: 40).status == 200)
    }

    @Test func metricsAnswerOnlyThisMachineAndNeverAProxiedRequest() async throws {
        let server = try TestServer()
        #expect(await server.request("GET", "/metrics").status == 200)
        let proxied = await server.request("GET", "/metrics", headers: [("X-Forwarded-For", "203.0.113.9")])
        #expect(proxied.status == 404)
        let remote = try TestServer(peer: "192.0.2.7")
        #expect(await remote.request("GET", "/metrics").status == 404)
        #expect(await remote.request("GET", "/healthz").status == 200)
    }

    @Test func aCachedReadIsAnsweredFromMemoryUntilThisServerWrites() async throws {
        let server = try TestServer { $0.rateLimited = false }
        await server.post()
        try await server.waitUntilListening()
        // The watch also hears of the post (a moment later): read until a read is a hit.
        let first = await server.request("GET", "/api/v1/posters/1")
        let deadline = ContinuousClock.now + .seconds(20)
        while server.app.readCache.statistics.hits == 0, ContinuousClock.now < deadline {
            #expect(await server.request("GET", "/api/v1/posters/1").header("ETag") == first.header("ETag"))
        }
        #expect(server.app.readCache.statistics.hits >= 1)
        #expect(await server.vote(1, side: 2, times: 3).status == 200)
        let after = await server.request("GET", "/api/v1/posters/1")
        #expect(after.json["good2"] as? Int == 3, "a vote this server answered is in every later read")
        #expect(after.header("ETag") != first.header("ETag"))
    }

    @Test func everyWriteThisServerAnswersDropsTheCachedReadsBeforeItsAnswer() async throws {
        // No change watch: only the writes' own invalidation can make a read fresh.
        let server = try TestServer(watchingChanges: false) {
            $0.rateLimited = false
            $0.adminToken = "secret-token"
        }
        let admin = [("Authorization", "Bearer secret-token")]
        func cached(_ target: String) async -> TestReply {
            _ = await server.request("GET", target)
            return await server.request("GET", target)
        }
        #expect((await cached("/api/v1/posters").json["posters"] as? [Any])?.count == 0)
        #expect(await server.post().status == 201)
        let page = await cached("/api/v1/posters")
        #expect((page.json["posters"] as? [Any])?.count == 1, "a post")
        #expect(await server.vote(1, side: 1, times: 2).status == 200)
        #expect(await cached("/api/v1/posters/1").json["good1"] as? Int == 2, "a vote")
        #expect(await server.request("PATCH", "/api/v1/posters/1", json: #"{"contents": "edited"}"#, headers: admin).status == 200)
        #expect(await cached("/api/v1/posters/1").json["contents"] as? String == "edited", "an edit")
        #expect(await server.request("DELETE", "/api/v1/posters/1", headers: admin).status == 200)
        #expect(await cached("/api/v1/posters/1").status == 404, "a delete")
    }

    @Test func aCommitByAnotherProcessReachesCachedReadsThroughTheChangeWatch() async throws {
        let server = try TestServer { $0.rateLimited = false }
        await server.post()
        try await server.waitUntilListening()
        #expect(await server.request("GET", "/api/v1/posters/1").json["good1"] as? Int == 0)
        // Another connection to the same store, as another process would have.
        let other = try Board(folder: server.folder, create: false)
        _ = try other.vote(id: 1, side: .first, times: 5)
        let deadline = ContinuousClock.now + .seconds(60)
        var seen = 0
        while ContinuousClock.now < deadline {
            seen = await server.request("GET", "/api/v1/posters/1").json["good1"] as? Int ?? -1
            if seen == 5 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(seen == 5)
    }

    @Test func theExecutorRefusesWorkPastItsQueueWith503() async throws {
        let executor = BoardExecutor(threads: 1, maximumQueued: 1)
        defer { executor.stop() }
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        #expect(
            executor.submit {
                started.signal()
                release.wait()
            })
        started.wait()
        #expect(executor.submit {}, "one may wait")
        let reply = executor.reply(failure: HTTPResponse.error) { .json("{}") }
        guard case .callback(let work) = reply else { Issue.record("not a callback"); return }
        let answered = Locked<HTTPResponse?>(nil)
        work { response in answered.withLock { $0 = response } }
        #expect(answered.withLock { $0?.status } == 503, "refused at once, not queued")
        release.signal()
    }
}
