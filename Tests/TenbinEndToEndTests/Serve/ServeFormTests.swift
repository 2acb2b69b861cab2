import Foundation
import Testing

extension ServeEndToEndTests {
    /// The page's vote form over a real socket, its fields read by libmicrohttpd. (The forms'
    /// behaviour, votes and posts, is tested in process: FormRoutesTests.)
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
        static func counts(_ server: ServeProcess, id: Int = 1) throws -> [Int] {
            let poster = try server.request("GET", "/api/v1/posters/\(id)").json
            return [poster["good1"] as? Int ?? -1, poster["good2"] as? Int ?? -1]
        }

        @Test func aFormVoteIsReadByTheServersURLEncodedReader() throws {
            // What the vote route does with a form's fields is tested in process
            // (FormRoutesTests); here libmicrohttpd's urlencoded reader makes the fields.
            let server = try ServeProcess(["--no-rate-limit"])
            try ServeAPITests.post(server)
            let own = "http://127.0.0.1:\(server.port)"
            let voted = try Self.formVote(server, headers: [("Origin", own), ("Referer", own + "/?sort=popular#top")])
            #expect(voted.status == 303, "\(voted.text)")
            #expect(voted.headers["location"] == "/?sort=popular#poster-1")
            #expect(try Self.counts(server) == [0, 1])
            for body in ["side=%zz", "side=1&side=2", "side=3"] {
                let reply = try Self.formVote(server, body: body, headers: [("Origin", own)])
                #expect(reply.status == 422, "\(body): \(reply.text)")
                #expect(reply.headers["content-type"] == "text/html; charset=utf-8")
                #expect(reply.text.contains("side must be 1 or 2"), "\(body)")
            }
            #expect(try Self.counts(server) == [0, 1])
        }
    }
}
