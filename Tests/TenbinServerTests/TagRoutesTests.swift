import Foundation
import Testing

@testable import TenbinKit
@testable import TenbinServer

/// `/t/TAG` and `GET /api/v1/tags/TAG`: a tag's posters trending first, its totals and its
/// timeline; hostile, malformed, overlong and unknown tags; hidden posters neither listed nor
/// counted.
@Suite struct TagRoutesTests {
    @Test func aTagsPageListsItsPostersTrendingFirstWithTotalsAndAChart() async throws {
        // A fixed clock: on the system's, a run across midnight UTC would split the votes over
        // two day buckets.
        let noon = Timestamp(secondsSince1970: 1_796_558_400)  // 2026-12-06 12:00 UTC
        let server = try TestServer(board: { $0.now = { noon } }) { $0.rateLimited = false }
        await server.post(contents: "one", hashtags: ["cats"])
        await server.post(contents: "two", hashtags: ["Cats", "dogs"])
        await server.post(contents: "three", hashtags: ["dogs"])
        await server.post(contents: "four", hashtags: ["catsup"])
        await server.vote(1, side: 1, times: 2)
        await server.vote(2, side: 2, times: 5)
        await server.vote(3, side: 1, times: 9)
        let json = await server.request("GET", "/api/v1/tags/cats")
        #expect(json.status == 200)
        // #Cats is the same tag (case folded); #catsup is another.
        #expect((json.json["posters"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [2, 1])
        #expect(json.json["tag"] as? String == "cats")
        #expect(json.json["posterCount"] as? Int == 2 && json.json["totalVotes"] as? Int == 7)
        #expect(json.json["good1"] as? Int == 2 && json.json["good2"] as? Int == 5)
        let buckets = try #require(json.json["buckets"] as? [[String: Any]])
        #expect(buckets.count == 1 && buckets[0]["good1"] as? Int == 2 && buckets[0]["good2"] as? Int == 5)
        let first = await server.request("GET", "/api/v1/tags/%23cats?limit=1")
        let next = try #require(first.json["next"] as? String)
        let second = await server.request("GET", "/api/v1/tags/cats?limit=1&cursor=\(next)")
        #expect((second.json["posters"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [1] && second.json["next"] == nil)
        let page = await server.request("GET", "/t/cats")
        #expect(page.status == 200)
        #expect(page.header("content-type")?.hasPrefix("text/html") == true)
        #expect(page.header("content-security-policy") != nil)
        #expect(page.text.contains("<h2 class=\"tag-title\">#cats</h2>"))
        #expect(page.text.contains("2 posters · 7 votes"))
        #expect(page.text.contains("<svg role=\"img\" aria-label=\"Votes per day on posters tagged #cats\""))
        let cards = page.text.matches(of: /id="poster-(\d+)"/).map { String($0.output.1) }
        #expect(cards == ["2", "1"])
        // The poster page links each of its tags' pages.
        let posterPage = await server.request("GET", "/p/2")
        #expect(posterPage.text.contains("<a class=\"tag-link\" href=\"/t/Cats\">The page of #Cats</a>"))
        #expect(posterPage.text.contains("<a class=\"tag-link\" href=\"/t/dogs\">The page of #dogs</a>"))
        let japanese = await server.request("GET", "/t/cats", headers: [("Accept-Language", "ja")])
        #expect(japanese.text.contains("投稿 2 件・7 票"))
    }

    @Test func hostileMalformedOverlongAndUnknownTagsAreAnsweredClearly() async throws {
        let server = try TestServer { $0.rateLimited = false }
        let hostile = "<script>alert(1)</script>&\""
        await server.post(contents: "x", hashtags: [hostile])
        let encoded = URLQuery.value(hostile)
        let page = await server.request("GET", "/t/\(encoded)")
        #expect(page.status == 200)
        #expect(!page.text.contains("<script>alert") && page.text.contains("#&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;"))
        #expect((await server.request("GET", "/api/v1/tags/\(encoded)")).json["posterCount"] as? Int == 1)
        // Unknown: an empty page and zero totals, not an error.
        let unknown = await server.request("GET", "/t/nobody-uses-this")
        #expect(unknown.status == 200 && unknown.text.contains("No poster has this tag yet."))
        let none = await server.request("GET", "/api/v1/tags/nobody-uses-this")
        #expect(none.status == 200 && none.json["posterCount"] as? Int == 0 && (none.json["posters"] as? [Any])?.isEmpty == true)
        // Not UTF-8, bad escapes, nothing but '#', too long: 400 with the reason (a page for /t/).
        for (path, reason) in [
            ("/api/v1/tags/%FF", "not percent-encoded UTF-8"), ("/api/v1/tags/%zz", "not percent-encoded UTF-8"),
            ("/api/v1/tags/%23%20", "at least one character"),
            ("/api/v1/tags/\(String(repeating: "a", count: 201))", "longer than 200 bytes"),
        ] {
            let refused = await server.request("GET", path)
            #expect(
                refused.status == 400 && refused.errorKind == "invalid_input" && refused.text.contains(reason), "\(path): \(refused.text)")
        }
        let refusedPage = await server.request("GET", "/t/%FF")
        #expect(refusedPage.status == 400 && refusedPage.header("content-type")?.hasPrefix("text/html") == true)
        #expect(await server.request("GET", "/api/v1/tags/cats?cursor=zzz").status == 400)
    }

    @Test func hiddenPostersAreNeitherListedNorCounted() async throws {
        let server = try TestServer { $0.rateLimited = false }
        await server.post(contents: "shown", hashtags: ["t"])
        await server.post(contents: "hidden", hashtags: ["t"])
        await server.vote(1, side: 1)
        await server.vote(2, side: 2, times: 4)
        _ = try server.board.hide(id: 2, actor: "ann")
        let json = await server.request("GET", "/api/v1/tags/t")
        #expect((json.json["posters"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [1])
        #expect(json.json["posterCount"] as? Int == 1 && json.json["totalVotes"] as? Int == 1)
        let buckets = try #require(json.json["buckets"] as? [[String: Any]])
        #expect(buckets.reduce(0) { $0 + ($1["good2"] as? Int ?? 0) } == 0)
        #expect(!(await server.request("GET", "/t/t")).text.contains(">hidden<"))
    }
}
