import Foundation
import TenbinKit
import Testing

/// What the routes make of the text in request bodies, in process: a JSON body after a UTF-8
/// byte-order mark, a key given twice, and poster text over the core's limits.
@Suite struct RequestTextRoutesTests {
    static let token = "text-token-0123456789abcdef"
    static let mark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// A server with an admin token and one poster.
    static func server() async throws -> TestServer {
        let server = try TestServer { $0.adminToken = token }
        await server.post(contents: "猫か犬か", hashtags: ["猫"])
        return server
    }

    static func patch(_ server: TestServer, _ body: [UInt8]) async -> TestReply {
        await server.request(
            "PATCH", "/api/v1/posters/1", headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
            body: .bytes(body))
    }

    static func vote(_ server: TestServer, _ body: [UInt8]) async -> TestReply {
        await server.request("POST", "/api/v1/posters/1/votes", headers: [("Content-Type", "application/json")], body: .bytes(body))
    }

    @Test func jsonBodiesAfterAByteOrderMarkAreRead() async throws {
        let server = try await Self.server()
        let quick = await Self.vote(server, Self.mark + Array(#"{"side":1,"times":2}"#.utf8))
        #expect(quick.status == 200, "\(quick.text)")
        #expect(quick.json["good1"] as? Int == 2)
        let spaced = await Self.vote(server, Self.mark + Array("\r\n{ \"side\": 2 }\n".utf8))
        #expect(spaced.status == 200, "\(spaced.text)")
        #expect(spaced.json["good2"] as? Int == 1)
        let edited = await Self.patch(server, Self.mark + Array(##"{"contents": "新しい質問", "hashtags": ["#犬"]}"##.utf8))
        #expect(edited.status == 200, "\(edited.text)")
        #expect(edited.json["contents"] as? String == "新しい質問")
        #expect(edited.json["hashtags"] as? [String] == ["犬"])
        // A second mark is not JSON.
        let twice = await Self.vote(server, Self.mark + Self.mark + Array(#"{"side": 1}"#.utf8))
        #expect(twice.status == 400)
        #expect(twice.errorMessage == "the body is not valid JSON: unexpected character where a value was expected at column 4")
        #expect(await server.poster(1)["good1"] as? Int == 2)
    }

    @Test func aKeyGivenTwiceIsRefusedWith400NamingItAndChangesNothing() async throws {
        let server = try await Self.server()
        let vote = await Self.vote(server, Array(#"{"side": 1, "side": 2}"#.utf8))
        #expect(vote.status == 400)
        #expect(vote.errorKind == "invalid_input")
        #expect(vote.errorMessage == #"the body is not valid JSON: the key "side" appears twice at column 13"#)
        let edit = await Self.patch(server, Array(#"{"contents": "a", "contents": "b"}"#.utf8))
        #expect(edit.status == 400)
        #expect(edit.errorMessage == #"the body is not valid JSON: the key "contents" appears twice at column 19"#)
        let poster = await server.poster(1)
        #expect(poster["contents"] as? String == "猫か犬か")
        #expect(poster["good1"] as? Int == 0 && poster["good2"] as? Int == 0)
    }

    @Test func posterTextOverTheLimitsIsRefusedWith422AndNothingIsStored() async throws {
        let server = try await Self.server()
        let edits: [(String, String)] = [
            ("{\"contents\": \"" + String(repeating: "長", count: 1366) + "\"}", "the question is longer than 4,096 bytes"),
            (
                "{\"hashtags\": [" + (0..<33).map { "\"t\($0)\"" }.joined(separator: ", ") + "]}",
                "a poster has at most 32 hashtags"
            ),
            (
                "{\"contents\": \"ok\", \"hashtags\": [\"" + String(repeating: "猫", count: 67) + "\"]}",
                "the hashtag \"\(String(repeating: "猫", count: 20))…\" is longer than 200 bytes"
            ),
        ]
        for (body, message) in edits {
            let reply = await Self.patch(server, Array(body.utf8))
            #expect(reply.status == 422, "\(reply.text)")
            #expect(reply.errorKind == "invalid_input")
            #expect(reply.errorMessage == message)
        }
        // A new poster: a hashtag field over the limit is read, then refused by the same rule;
        // the question's field is bounded by the same number while the form arrives.
        let tag = await server.post(contents: "", hashtags: [String(repeating: "x", count: 201)])
        #expect(tag.status == 422)
        #expect(tag.errorMessage == "the hashtag \"\(String(repeating: "x", count: 20))…\" is longer than 200 bytes")
        let question = await server.post(contents: String(repeating: "a", count: 4097))
        #expect(question.status == 413)
        #expect(question.errorMessage == "the form field \"contents\" is larger than 4096 bytes")
        let page = await server.request("GET", "/api/v1/posters").json["posters"] as? [[String: Any]]
        #expect(page?.count == 1)
        #expect(page?.first?["contents"] as? String == "猫か犬か")
        #expect(page?.first?["hashtags"] as? [String] == ["猫"])
    }
}
