import Foundation
import TenbinKit
import Testing

/// The page's forms as a browser without JavaScript sends them, in process (a vote tapped
/// before app.js arrived, or no script at all): a form vote and a form post are stored and
/// answered with a redirect back to the board; every failure is a page naming it, never JSON.
/// Forms reach the routes as parts, the way libmicrohttpd's form readers hand them over.
@Suite struct FormRoutesTests {
    static let browserAccept = ("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
    static let own = "http://127.0.0.1:8080"

    static func formVote(
        _ server: TestServer, id: Int = 1, fields: [(String, String)] = [("side", "2")], headers: [(String, String)]
    ) async -> TestReply {
        await server.request("POST", "/api/v1/posters/\(id)/votes", urlencoded: fields, headers: [browserAccept] + headers)
    }

    /// Sends the cat and the dog with `fields` as the page's post form does without its script:
    /// from the page's own origin, by a browser asking for HTML.
    static func formPost(_ server: TestServer, _ fields: [(String, String)]) async -> TestReply {
        let parts =
            [("image1", TestServer.cat, "cat.jpg"), ("image2", TestServer.dog, "dog.jpg")] + fields.map { ($0.0, Array($0.1.utf8), nil) }
        return await server.request(
            "POST", "/api/v1/posters", headers: [("Origin", own), browserAccept],
            body: .form(parts.map { (name: $0.0, bytes: $0.1, filename: $0.2) }))
    }

    static func counts(_ server: TestServer, id: Int64 = 1) async -> [Int] {
        let poster = await server.poster(id)
        return [poster["good1"] as? Int ?? -1, poster["good2"] as? Int ?? -1]
    }

    @Test func theBoardsVoteButtonsAreAFormThatWorksWithoutScript() async throws {
        let server = try TestServer { $0.rateLimited = false }
        await server.post()
        let page = await server.request("GET", "/?sort=popular")
        #expect(page.text.contains(#"<form class="votes" method="post" action="/api/v1/posters/1/votes">"#))
        #expect(page.text.contains(#"<button type="submit" name="side" value="1""#))
        let voted = await Self.formVote(server, headers: [("Origin", Self.own), ("Referer", Self.own + "/?sort=popular#top")])
        #expect(voted.status == 303, "\(voted.text)")
        #expect(voted.header("location") == "/?sort=popular#poster-1", "back to the page the form was on, at the poster")
        #expect(await Self.counts(server) == [0, 1])
        // Referer alone (an older browser) is enough; the vote is counted once per request.
        let again = await Self.formVote(server, fields: [("side", "1")], headers: [("Referer", Self.own + "/")])
        #expect(again.status == 303)
        #expect(again.header("location") == "/#poster-1")
        #expect(await Self.counts(server) == [1, 1])
    }

    @Test func aFormVoteFromAnotherSiteOrFromNoPageIsRefusedAndNotCounted() async throws {
        let server = try TestServer { $0.rateLimited = false }
        await server.post()
        for headers in [[("Origin", "http://evil.example")], [("Referer", "http://evil.example/x")], [("Origin", "null")], []] {
            let reply = await Self.formVote(server, headers: headers)
            #expect(reply.status == 403, "\(headers)")
            #expect(reply.header("content-type") == "text/html; charset=utf-8")
            #expect(reply.text.contains("Back to the board"))
        }
        #expect(await Self.counts(server) == [0, 0])
    }

    @Test(arguments: [
        ([("side", "3")], 422, "side must be 1 or 2"), ([("side", "")], 422, "side must be 1 or 2"),
        ([("times", "5")], 422, "unknown field"), ([("side", "1"), ("side", "2")], 422, "side must be 1 or 2"),
    ])
    func aBadFormVoteIsAPageNamingTheProblem(fields: [(String, String)], status: Int, message: String) async throws {
        let server = try TestServer { $0.rateLimited = false }
        await server.post()
        let reply = await Self.formVote(server, fields: fields, headers: [("Origin", Self.own)])
        #expect(reply.status == status, "\(reply.text)")
        #expect(reply.header("content-type") == "text/html; charset=utf-8")
        #expect(reply.text.contains(message))
        #expect(await Self.counts(server) == [0, 0])
    }

    @Test func aScriptsJSONVoteSentAsCurlDashDSendsItIsToldToSayJSON() async throws {
        let server = try TestServer { $0.rateLimited = false }
        await server.post()
        // `curl -d '{"side": 1}' URL` without -H: urlencoded, Accept */*, no Origin or Referer.
        // Before, the script got an HTML page saying a form must come from the server's page.
        let reply = await server.request(
            "POST", "/api/v1/posters/1/votes", headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "*/*")],
            body: .bytes(Array(#"{"side": 1}"#.utf8)))
        #expect(reply.status == 415, "\(reply.text)")
        #expect(reply.header("content-type") == "application/json; charset=utf-8")
        #expect(reply.errorKind == "unsupported_media_type")
        #expect(reply.errorMessage?.contains("Content-Type: application/json") == true, "\(reply.text)")
        #expect(await Self.counts(server) == [0, 0])
    }

    @Test func aFormVoteForAMissingPosterIsANotFoundPage() async throws {
        let server = try TestServer { $0.rateLimited = false }
        let reply = await Self.formVote(server, id: 9, headers: [("Origin", Self.own)])
        #expect(reply.status == 404)
        #expect(reply.text.contains("9"))
        #expect(reply.header("content-type") == "text/html; charset=utf-8")
    }

    @Test func aHostileRefererNeverReachesTheRedirectOrThePage() async throws {
        let server = try TestServer { $0.rateLimited = false }
        await server.post()
        for referer in [Self.own + "//evil.example/", Self.own + "/\"><script>alert(1)</script>", Self.own + "/\\evil", Self.own + "/あ"] {
            let reply = await Self.formVote(server, headers: [("Referer", referer)])
            #expect(reply.status == 303, "\(referer)")
            #expect(reply.header("location") == "/#poster-1", "\(referer)")
        }
        let refused = await Self.formVote(server, fields: [("side", "9")], headers: [("Referer", Self.own + "/?q=\"><b>x</b>")])
        #expect(refused.status == 422)
        #expect(!refused.text.contains("<b>x</b>"))
    }

    @Test func thePostFormsHashtagBoxWithoutScriptGivesOneHashtagPerWord() async throws {
        let server = try TestServer { $0.rateLimited = false }
        // The page has one hashtag box, "separated by spaces or commas". Its script splits it;
        // a browser without the script (or before it arrived) sends the box as it is. Before,
        // that stored one hashtag "cats #dogs, 猫、犬".
        let posted = await Self.formPost(server, [("contents", ""), ("hashtags", " #cats #dogs, 猫、犬　＃ペット ")])
        #expect(posted.status == 303, "\(posted.text)")
        #expect(await server.poster(1)["hashtags"] as? [String] == ["cats", "dogs", "猫", "犬", "ペット"])
        // A program's form names each hashtag in a field of its own: kept as sent.
        let created = await server.post(contents: "", hashtags: ["New York"])
        #expect(created.status == 201, "\(created.text)")
        #expect(created.json["hashtags"] as? [String] == ["New York"])
    }

    @Test func thePostFormWithoutScriptRedirectsToTheNewPosterOrShowsTheProblem() async throws {
        let server = try TestServer { $0.rateLimited = false }
        let posted = await Self.formPost(server, [("contents", "<i>猫</i>か犬か")])
        #expect(posted.status == 303, "\(posted.text)")
        #expect(posted.header("location") == "/p/1", "to the new poster's page")
        let page = await server.request("GET", "/")
        #expect(page.text.contains("&lt;i&gt;猫&lt;/i&gt;か犬か"))
        let bad: [(name: String, bytes: [UInt8], filename: String?)] = [
            ("image1", Array("<script>not an image</script>".utf8), nil), ("image2", TestServer.dog, "dog.jpg"),
        ]
        let refused = await server.request(
            "POST", "/api/v1/posters", headers: [("Origin", Self.own), Self.browserAccept], body: .form(bad))
        #expect((400..<500).contains(refused.status), "\(refused.text)")
        #expect(refused.header("content-type") == "text/html; charset=utf-8")
        #expect(refused.text.contains("Back to the board") && !refused.text.contains("<script>"))
        // A script asking for JSON still gets JSON.
        let script = await server.request("POST", "/api/v1/posters", headers: [("Accept", "application/json")], body: .form(bad))
        #expect(script.header("content-type") == "application/json; charset=utf-8")
    }
}
