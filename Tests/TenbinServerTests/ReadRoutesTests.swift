import Foundation
import TenbinKit
import TestProcesses
import Testing

/// The read routes in process: pages of posters and their cursors, one poster, search, the web
/// page, health and metrics; their errors (400, 404, 405), entity tags and gzip.
@Suite struct ReadRoutesTests {
    /// The ids of a page or search answer's posters, in order.
    static func ids(_ reply: TestReply) -> [Int]? {
        (reply.json["posters"] as? [[String: Any]])?.compactMap { $0["id"] as? Int }
    }

    /// `gzip -dc` of `bytes`.
    static func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-dc"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.start()
        // The compressed pages here are a few KB: the pipe holds them, and gzip's output is read
        // to its end before waiting.
        try input.fileHandleForWriting.write(contentsOf: Data(bytes))
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        process.waitForExit()
        #expect(process.terminationStatus == 0)
        return Array(out)
    }

    @Test func pagesFollowTheirCursorsThroughEveryPosterOnce() async throws {
        let server = try TestServer { $0.rateLimited = false }
        for index in 1...7 { await server.post(contents: "poster \(index)") }
        var ids: [Int] = []
        var path = "/api/v1/posters?limit=3"
        var pages = 0
        while pages < 10 {
            let reply = await server.request("GET", path)
            #expect(reply.status == 200)
            ids += Self.ids(reply) ?? []
            pages += 1
            guard let next = reply.json["next"] as? String else { break }
            path = "/api/v1/posters?limit=3&cursor=\(next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? next)"
        }
        #expect(ids == [7, 6, 5, 4, 3, 2, 1])
        #expect(pages == 3)
        // Without JavaScript, the page's "More posters" link carries the cursor too.
        for index in 8...25 { await server.post(contents: "poster \(index)") }
        let first = await server.request("GET", "/")
        let more = try #require(first.text.firstMatch(of: /href="\/\?[^"]*cursor=([A-Za-z0-9.\-]+)/)).output.1
        let second = await server.request("GET", "/?cursor=\(more)")
        #expect(second.status == 200)
        #expect(first.text.contains(">poster 25<") && !second.text.contains(">poster 25<"))
        #expect(second.text.contains(">poster 5<"))
        let popular = await server.request("GET", "/api/v1/posters?sort=popular&limit=100")
        #expect(popular.status == 200)
        #expect((popular.json["posters"] as? [Any])?.count == 25)
        #expect(popular.json["next"] == nil)
    }

    @Test func aPopularWalkShowsThePostersVotesMoveBehindItsCursor() async throws {
        // The report: walking sort=popular with limit=4 while #8 got 50 votes and #3 one never
        // showed posters 3 and 8 (they jumped above the cursor).
        let server = try TestServer { $0.rateLimited = false }
        for index in 1...12 { await server.post(contents: "poster \(index)") }
        var path = "/api/v1/posters?sort=popular&limit=4"
        var ids: [Int] = []
        var pages = 0
        while pages < 10 {
            let reply = await server.request("GET", path)
            #expect(reply.status == 200, "\(reply.text)")
            ids += Self.ids(reply) ?? []
            pages += 1
            if pages == 1 {
                #expect(await server.vote(8, side: 1, times: 50).status == 200)
                #expect(await server.vote(3, side: 2).status == 200)
            }
            guard let next = reply.json["next"] as? String else { break }
            path =
                "/api/v1/posters?sort=popular&limit=4&cursor=\(next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? next)"
        }
        #expect(ids == Array((1...12).reversed()), "the order as the walk began, each poster once")
        // A new walk ranks by the votes now.
        #expect(Self.ids(await server.request("GET", "/api/v1/posters?sort=popular&limit=3")) == [8, 3, 12])
        // A cursor of the old form (no walk mark), or with a mark this backend never makes (a
        // PostgreSQL snapshot's on SQLite), is refused like any bad cursor.
        // So is one whose walk mark is beyond every batch the store numbered.
        for cursor in ["p0-9", "p0-9-5-6", "p0-9-1-2-3-4-5-6-7-8-9-10-11", "p0-9-999999"] {
            let reply = await server.request("GET", "/api/v1/posters?sort=popular&limit=4&cursor=\(cursor)")
            #expect(reply.status == 400 && reply.errorKind == "invalid_input", "\(cursor): \(reply.text)")
            #expect(reply.errorMessage?.contains("cursor") == true, "\(reply.text)")
        }
    }

    @Test func aWalkOlderThanTheVoteLogKeepsIsGoneAndThePageStartsAgain() async throws {
        let clock = Locked(Int64(1_764_450_000))
        let server = try TestServer(board: { $0.now = { Timestamp(secondsSince1970: clock.withLock { $0 }) } }) {
            $0.rateLimited = false
        }
        for index in 1...6 { await server.post(contents: "poster \(index)") }
        let first = await server.request("GET", "/api/v1/posters?sort=popular&limit=2")
        let cursor = try #require(first.json["next"] as? String)
        // Over an hour later, enough vote batches that one prunes the log.
        clock.withLock { $0 += VoteSnapshot.retention + 60 }
        for index in 0..<VoteSnapshot.pruneEvery { #expect(await server.vote(1 + index % 6, side: 1).status == 200) }
        clock.withLock { $0 += VoteSnapshot.retention + 60 }
        for index in 0..<VoteSnapshot.pruneEvery { #expect(await server.vote(1 + index % 6, side: 2).status == 200) }
        let expired = await server.request("GET", "/api/v1/posters?sort=popular&limit=2&cursor=\(cursor)")
        #expect(expired.status == 410 && expired.errorKind == "cursor_expired", "\(expired.text)")
        #expect(expired.errorMessage?.contains("start from the first page") == true, "\(expired.text)")
        let search = await server.request("GET", "/api/v1/search?q=poster&sort=popular&limit=2")
        #expect(search.status == 200)
        // The page without JavaScript: its "More posters" link shows the first page again.
        let page = await server.request("GET", "/?sort=popular&cursor=\(cursor)")
        #expect(page.status == 200, "\(page.text)")
        for index in 1...6 { #expect(page.text.contains("poster \(index)<"), "the first page, every poster on it: \(index)") }
    }

    @Test func trendingOrderServesTheListSearchAndTheBoardsThirdTab() async throws {
        let server = try TestServer { $0.rateLimited = false }
        for index in 1...4 { await server.post(contents: "trend \(index)") }
        await server.vote(2, side: 1, times: 3)
        await server.vote(3, side: 2)
        let list = await server.request("GET", "/api/v1/posters?sort=trending&limit=100")
        #expect(list.status == 200)
        // Voted posters by score, then the unvoted ones newest first.
        #expect((list.json["posters"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [2, 3, 4, 1])
        let first = await server.request("GET", "/api/v1/posters?sort=trending&limit=1")
        let next = try #require(first.json["next"] as? String)
        #expect(next.hasPrefix("t"))
        let second = await server.request("GET", "/api/v1/posters?sort=trending&limit=1&cursor=\(next)")
        #expect((second.json["posters"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [3])
        #expect(await server.request("GET", "/api/v1/posters?sort=popular&limit=1&cursor=\(next)").status == 400)
        let search = await server.request("GET", "/api/v1/search?q=trend&sort=trending&limit=100")
        #expect((search.json["posters"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [2, 3, 4, 1])
        let page = await server.request("GET", "/?sort=trending")
        #expect(page.status == 200)
        #expect(page.text.contains("<a class=\"tab\" href=\"/?sort=trending\" data-sort=\"trending\" aria-current=\"page\">Trending</a>"))
        #expect(page.text.contains("<a class=\"tab\" href=\"/?sort=popular\" data-sort=\"popular\">Popular</a>"))
        let japanese = await server.request("GET", "/?sort=trending", headers: [("Accept-Language", "ja")])
        #expect(japanese.text.contains("data-sort=\"trending\" aria-current=\"page\">急上昇</a>"))
        let refused = await server.request("GET", "/api/v1/posters?sort=hot")
        #expect(refused.status == 400 && refused.text.contains("sort must be new, popular or trending"))
    }

    @Test func aCursorFromAnotherOrderIsRefused() async throws {
        let server = try TestServer { $0.rateLimited = false }
        for _ in 0..<3 { await server.post() }
        let first = await server.request("GET", "/api/v1/posters?limit=1")
        let next = first.json["next"] as? String ?? ""
        #expect(!next.isEmpty)
        let encoded = next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? next
        #expect(await server.request("GET", "/api/v1/posters?limit=1&cursor=\(encoded)").status == 200)
        let other = await server.request("GET", "/api/v1/posters?limit=1&sort=popular&cursor=\(encoded)")
        #expect(other.status == 400, "\(other.text)")
        #expect(other.errorKind == "invalid_input")
    }

    @Test(arguments: [
        ("/api/v1/posters?sort=oldest", "sort"), ("/api/v1/posters?limit=0", "limit"), ("/api/v1/posters?limit=101", "limit"),
        ("/api/v1/posters?limit=abc", "limit"), ("/api/v1/posters?cursor=zzz", "cursor"), ("/api/v1/posters?q=%E3%81", "UTF-8"),
        ("/api/v1/posters?q=%zz", "percent"), ("/api/v1/search?q=a&sort=x", "sort"),
        ("/thumbs/\(String(repeating: "a", count: 64))?w=100", "w must"), ("/api/v1/feed?sort=sideways", "sort"),
        ("/api/v1/feed?limit=1000", "limit"),
    ])
    func badQueryParametersAreRefusedWith400NamingTheParameter(path: String, word: String) async throws {
        let server = try TestServer()
        let reply = await server.request("GET", path)
        #expect(reply.status == 400, "\(path): \(reply.text)")
        #expect(reply.errorKind == "invalid_input")
        #expect(reply.errorMessage?.contains(word) == true, "\(reply.text)")
    }

    @Test func missingThingsAre404AndWrongMethodsAre405WithAllow() async throws {
        let server = try TestServer()
        await server.post()
        for path in [
            "/api/v1/posters/99", "/api/v1/posters/abc", "/api/v1/posters/0", "/nothing", "/api/v2/posters", "/blobs/xyz",
            "/blobs/\(String(repeating: "0", count: 64))", "/static/missing.js", "/api/v1/posters/1/votes/2",
        ] {
            let reply = await server.request("GET", path)
            #expect(reply.status == 404, "\(path)")
            #expect(reply.errorKind == "not_found", "\(path)")
            #expect(reply.header("content-type") == "application/json; charset=utf-8")
        }
        let put = await server.request("PUT", "/api/v1/posters/1")
        #expect(put.status == 405)
        #expect(put.errorKind == "method_not_allowed")
        #expect(put.header("allow") == "GET, HEAD, PATCH, DELETE")
        #expect(put.errorMessage == "PUT is not allowed here; use GET, HEAD, PATCH or DELETE", "\(put.text)")
        let getVotes = await server.request("GET", "/api/v1/posters/1/votes")
        #expect(getVotes.status == 405)
        #expect(getVotes.header("allow") == "POST")
        #expect(getVotes.errorMessage == "GET is not allowed here; use POST")
        let postFeed = await server.request("POST", "/api/v1/feed", body: .bytes([]))
        #expect(postFeed.status == 405)
    }

    @Test func searchMatchesLikeTheBoardAndAnswersInItsShape() async throws {
        let server = try TestServer()
        await server.post(contents: "キノコの山", hashtags: ["お菓子"])
        await server.post(contents: "sea or mountain")
        // やま and #おかし find 山 and #お菓子 by their readings (search by reading).
        for query in ["ｷﾉｺ", "きのこ", "%23お菓子", "SEA", "山%E3%80%80キノコ", "%E3%82%84%E3%81%BE", "%23%E3%81%8A%E3%81%8B%E3%81%97"] {
            let reply = await server.request("GET", "/api/v1/search?q=\(query)")
            #expect(reply.status == 200)
            #expect(Self.ids(reply) == (query == "SEA" ? [2] : [1]), "\(query)")
        }
        let empty = await server.request("GET", "/api/v1/search?q=%20%20")
        #expect(empty.text == "{\"posters\": []}\n")
        // The same answer as the board's own search (which `tenbin search` prints).
        let api = await server.request("GET", "/api/v1/search?q=%EF%BD%B7%EF%BE%89%EF%BD%BA")
        #expect(Self.ids(api) == (try server.board.search(query: "ｷﾉｺ")).map { Int($0.id) })
    }

    @Test func healthMetricsAndTheWebPageAnswerWithTheirHeaders() async throws {
        let server = try TestServer()
        await server.post(contents: "<script>alert(1)</script>")
        let health = await server.request("GET", "/healthz")
        #expect(health.status == 200)
        #expect(health.json["status"] as? String == "ok")
        let page = await server.request("GET", "/")
        #expect(page.status == 200)
        #expect(page.header("content-type") == "text/html; charset=utf-8")
        #expect(
            page.header("content-security-policy")
                == "default-src 'self'; img-src 'self' blob:; object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'"
        )
        #expect(page.header("referrer-policy") == "same-origin")
        #expect(page.header("x-content-type-options") == "nosniff")
        #expect(!page.text.contains("<script>alert"))
        #expect(await server.request("GET", "/?q=script").status == 200)
        await server.vote(1, side: 2, times: 3)
        let metrics = await server.request("GET", "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.header("content-type")?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.text.contains("tenbin_http_requests_total{route=\"GET /healthz\",status=\"200\"} 1"))
        #expect(metrics.text.contains("tenbin_votes_committed_total 3"))
        #expect(metrics.text.contains("tenbin_http_request_duration_seconds_bucket{le=\"+Inf\"}"))
        #expect(metrics.text.contains("tenbin_live_feeds 0"))
    }

    @Test func readsCarryAnEntityTagAndAnswer304UntilTheyChange() async throws {
        let server = try TestServer { $0.rateLimited = false }
        await server.post(contents: "cats or dogs")
        for path in ["/api/v1/posters?limit=5", "/api/v1/posters/1", "/api/v1/search?q=cats", "/", "/?sort=popular", "/?q=cats"] {
            let first = await server.request("GET", path)
            #expect(first.status == 200)
            #expect(first.header("cache-control") == "no-cache")
            let etag = try #require(first.header("etag"))
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 34, "\(etag)")
            // The same bytes under the same tag, from the cache or not.
            let again = await server.request("GET", path)
            #expect(again.header("etag") == etag)
            #expect(again.bytes == first.bytes)
            let unchanged = await server.request("GET", path, headers: [("If-None-Match", etag)])
            #expect(unchanged.status == 304)
            #expect(unchanged.bytes.isEmpty)
            #expect(unchanged.header("etag") == etag)
            #expect(await server.request("GET", path, headers: [("If-None-Match", "\"other\"")]).status == 200)

            // A vote through the server: the next answer shows it, under a new tag.
            #expect(await server.vote(1, side: 2).status == 200)
            let changed = await server.request("GET", path, headers: [("If-None-Match", etag)])
            #expect(changed.status == 200, "\(path) changed with a vote")
            #expect(changed.header("etag") != etag)
            #expect(changed.text != first.text)
        }
        #expect(await server.request("GET", "/").text.contains(#"<span class="count">6</span>"#))
        // Errors are not cached and carry no tag.
        let missing = await server.request("GET", "/api/v1/posters/9")
        #expect(missing.status == 404)
        #expect(missing.header("etag") == nil)
    }

    @Test func pagesAndSearchesOfTheAPIGoGzippedToAClientThatTakesItAndSmallAnswersAsTheyAre() async throws {
        let server = try TestServer { $0.rateLimited = false }
        for index in 1...20 { await server.post(contents: "猫か犬か \(index)", hashtags: ["ねこ", "いぬ"]) }
        let browser = ("Accept-Encoding", "gzip")
        for path in ["/api/v1/posters?limit=20", "/api/v1/search?q=%E3%83%8D%E3%82%B3&limit=20&sort=popular"] {
            let plain = await server.request("GET", path)
            #expect(plain.status == 200)
            #expect(plain.header("content-encoding") == nil)
            // Asked twice: compressed the first time, kept with the cached page the second.
            for _ in 0..<2 {
                let zipped = await server.request("GET", path, headers: [browser])
                #expect(zipped.header("content-encoding") == "gzip", "\(path)")
                #expect(zipped.header("vary") == "Accept-Encoding")
                #expect(zipped.bytes.count * 4 < plain.bytes.count, "\(path): \(zipped.bytes.count) of \(plain.bytes.count) bytes")
                #expect(try Self.gunzip(zipped.bytes) == plain.bytes, "\(path)")
                let etag = try #require(zipped.header("etag"))
                #expect(await server.request("GET", path, headers: [browser, ("If-None-Match", etag)]).status == 304)
            }
        }
        // One poster (about 400 bytes) is one packet either way: as it is, and no Vary.
        let one = await server.request("GET", "/api/v1/posters/1", headers: [browser])
        #expect(one.status == 200)
        #expect(one.header("content-encoding") == nil)
        #expect(one.header("vary") == nil)
        // A vote moves the version: the new page is compressed anew and says the new count.
        #expect(await server.vote(20, side: 2).status == 200)
        let after = await server.request("GET", "/api/v1/posters?limit=20", headers: [browser])
        #expect(String(decoding: try Self.gunzip(after.bytes), as: UTF8.self).contains(#""good2": 1"#))
    }
}
