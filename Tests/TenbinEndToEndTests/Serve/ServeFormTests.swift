import Foundation
import Testing

extension ServeEndToEndTests {
    /// The page's forms sent by a browser without JavaScript (a vote tapped before app.js
    /// arrived, or no script at all): a form vote and a form post are stored and answered with
    /// a redirect back to the board; every failure is a page naming it, never JSON or a crash.
    @Suite(.timeLimit(.minutes(10))) struct ServeFormTests {
        static let browserAccept = ("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")

        static func formVote(
            _ server: ServeProcess, id: Int = 1, body: String = "side=2", headers: [(String, String)]
        ) throws -> HTTPReply {
            try server.request(
                "POST", "/api/v1/posters/\(id)/votes",
                headers: [("Content-Type", "application/x-www-form-urlencoded"), browserAccept] + headers, body: Array(body.utf8))
        }

        /// Sends `form` as the page's post form does without its script: from the page's own
        /// origin, by a browser asking for HTML.
        static func formPost(_ server: ServeProcess, _ form: Multipart) throws -> HTTPReply {
            try server.request(
                "POST", "/api/v1/posters",
                headers: [("Content-Type", form.contentType), ("Origin", "http://127.0.0.1:\(server.port)"), browserAccept],
                body: form.body)
        }

        /// A post form with the cat and the dog and `fields` (name, value) after them.
        static func catAndDog(_ fields: [(String, String)]) throws -> Multipart {
            var form = Multipart()
            try form.file("image1", path: ServeAPITests.cat)
            try form.file("image2", path: ServeAPITests.dog)
            for (name, value) in fields { form.field(name, value) }
            return form
        }

        static func counts(_ server: ServeProcess, id: Int = 1) throws -> [Int] {
            let poster = try server.request("GET", "/api/v1/posters/\(id)").json
            return [poster["good1"] as? Int ?? -1, poster["good2"] as? Int ?? -1]
        }

        @Test func theBoardsVoteButtonsAreAFormThatWorksWithoutScript() throws {
            let server = try ServeProcess(["--no-rate-limit"])
            try ServeAPITests.post(server)
            let page = try server.request("GET", "/?sort=popular")
            #expect(page.text.contains(#"<form class="votes" method="post" action="/api/v1/posters/1/votes">"#))
            #expect(page.text.contains(#"<button type="submit" name="side" value="1""#))
            let own = "http://127.0.0.1:\(server.port)"
            let voted = try Self.formVote(server, headers: [("Origin", own), ("Referer", own + "/?sort=popular#top")])
            #expect(voted.status == 303, "\(voted.text)")
            #expect(voted.headers["location"] == "/?sort=popular#poster-1", "back to the page the form was on, at the poster")
            #expect(try Self.counts(server) == [0, 1])
            // Referer alone (an older browser) is enough; the vote is counted once per request.
            let again = try Self.formVote(server, body: "side=1", headers: [("Referer", own + "/")])
            #expect(again.status == 303)
            #expect(again.headers["location"] == "/#poster-1")
            #expect(try Self.counts(server) == [1, 1])
        }

        @Test func aFormVoteFromAnotherSiteOrFromNoPageIsRefusedAndNotCounted() throws {
            let server = try ServeProcess(["--no-rate-limit"])
            try ServeAPITests.post(server)
            for headers in [[("Origin", "http://evil.example")], [("Referer", "http://evil.example/x")], [("Origin", "null")], []] {
                let reply = try Self.formVote(server, headers: headers)
                #expect(reply.status == 403, "\(headers)")
                #expect(reply.headers["content-type"] == "text/html; charset=utf-8")
                #expect(reply.text.contains("Back to the board"))
            }
            #expect(try Self.counts(server) == [0, 0])
        }

        @Test(arguments: [
            ("side=3", 422, "side must be 1 or 2"), ("side=", 422, "side must be 1 or 2"), ("times=5", 422, "unknown field"),
            ("side=1&side=2", 422, "side must be 1 or 2"), ("side=%zz", 422, "side must be 1 or 2"),
        ])
        func aBadFormVoteIsAPageNamingTheProblem(body: String, status: Int, message: String) throws {
            let server = try ServeProcess(["--no-rate-limit"])
            try ServeAPITests.post(server)
            let own = "http://127.0.0.1:\(server.port)"
            let reply = try Self.formVote(server, body: body, headers: [("Origin", own)])
            #expect(reply.status == status, "\(reply.text)")
            #expect(reply.headers["content-type"] == "text/html; charset=utf-8")
            #expect(reply.text.contains(message))
            #expect(try Self.counts(server) == [0, 0])
        }

        @Test func aScriptsJSONVoteSentAsCurlDashDSendsItIsToldToSayJSON() throws {
            let server = try ServeProcess(["--no-rate-limit"])
            try ServeAPITests.post(server)
            // `curl -d '{"side": 1}' URL` without -H: urlencoded, Accept */*, no Origin or Referer.
            // Before, the script got an HTML page saying a form must come from the server's page.
            let reply = try server.request(
                "POST", "/api/v1/posters/1/votes", headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "*/*")],
                body: Array(#"{"side": 1}"#.utf8))
            #expect(reply.status == 415, "\(reply.text)")
            #expect(reply.headers["content-type"] == "application/json; charset=utf-8")
            #expect(reply.errorKind == "unsupported_media_type")
            #expect(reply.errorMessage?.contains("Content-Type: application/json") == true, "\(reply.text)")
            #expect(try Self.counts(server) == [0, 0])
        }

        @Test func aFormVoteForAMissingPosterIsANotFoundPage() throws {
            let server = try ServeProcess(["--no-rate-limit"])
            let own = "http://127.0.0.1:\(server.port)"
            let reply = try Self.formVote(server, id: 9, headers: [("Origin", own)])
            #expect(reply.status == 404)
            #expect(reply.text.contains("9"))
            #expect(reply.headers["content-type"] == "text/html; charset=utf-8")
        }

        @Test func aHostileRefererNeverReachesTheRedirectOrThePage() throws {
            let server = try ServeProcess(["--no-rate-limit"])
            try ServeAPITests.post(server)
            let own = "http://127.0.0.1:\(server.port)"
            for referer in [own + "//evil.example/", own + "/\"><script>alert(1)</script>", own + "/\\evil", own + "/あ"] {
                let reply = try Self.formVote(server, headers: [("Referer", referer)])
                #expect(reply.status == 303, "\(referer)")
                #expect(reply.headers["location"] == "/#poster-1", "\(referer)")
            }
            let refused = try Self.formVote(server, body: "side=9", headers: [("Referer", own + "/?q=\"><b>x</b>")])
            #expect(refused.status == 422)
            #expect(!refused.text.contains("<b>x</b>"))
        }

        @Test func thePostFormsHashtagBoxWithoutScriptGivesOneHashtagPerWord() throws {
            let server = try ServeProcess(["--no-rate-limit"])
            // The page has one hashtag box, "separated by spaces or commas". Its script splits it;
            // a browser without the script (or before it arrived) sends the box as it is. Before,
            // that stored one hashtag "cats #dogs, 猫、犬".
            let posted = try Self.formPost(server, Self.catAndDog([("contents", ""), ("hashtags", " #cats #dogs, 猫、犬　＃ペット ")]))
            #expect(posted.status == 303, "\(posted.text)")
            #expect(try server.request("GET", "/api/v1/posters/1").json["hashtags"] as? [String] == ["cats", "dogs", "猫", "犬", "ペット"])
            // A program's form names each hashtag in a field of its own: kept as sent.
            let api = try Self.catAndDog([("hashtags", "New York")])
            let created = try server.request("POST", "/api/v1/posters", headers: [("Content-Type", api.contentType)], body: api.body)
            #expect(created.status == 201, "\(created.text)")
            #expect(created.json["hashtags"] as? [String] == ["New York"])
        }

        @Test func thePostFormWithoutScriptRedirectsToTheNewPosterOrShowsTheProblem() throws {
            let server = try ServeProcess(["--no-rate-limit"])
            let posted = try Self.formPost(server, Self.catAndDog([("contents", "<i>猫</i>か犬か")]))
            #expect(posted.status == 303, "\(posted.text)")
            #expect(posted.headers["location"] == "/#poster-1")
            let page = try server.request("GET", "/")
            #expect(page.text.contains("&lt;i&gt;猫&lt;/i&gt;か犬か"))
            var bad = Multipart()
            bad.field("image1", "<script>not an image</script>")
            try bad.file("image2", path: ServeAPITests.dog)
            let refused = try Self.formPost(server, bad)
            #expect((400..<500).contains(refused.status), "\(refused.text)")
            #expect(refused.headers["content-type"] == "text/html; charset=utf-8")
            #expect(refused.text.contains("Back to the board") && !refused.text.contains("<script>"))
            // A script asking for JSON still gets JSON.
            let script = try server.request(
                "POST", "/api/v1/posters", headers: [("Content-Type", bad.contentType), ("Accept", "application/json")], body: bad.body)
            #expect(script.headers["content-type"] == "application/json; charset=utf-8")
        }
    }
}
