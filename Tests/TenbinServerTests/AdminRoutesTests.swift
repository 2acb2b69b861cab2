import Foundation
import TenbinKit
import Testing

@testable import TenbinServer

/// The admin token in process: edits and deletes need it (and are off without one), and a
/// script holding it is not rate limited.
@Suite struct AdminRoutesTests {
    static let token = "s3cret-token-for-tests-0123456789"
    static let auth = [("Authorization", "Bearer \(token)")]

    /// The first image's digest of a poster's JSON object.
    static func digest(_ poster: [String: Any]) -> String {
        ((poster["images"] as? [[String: Any]])?.first?["digest"] as? String) ?? ""
    }

    @Test func deleteAndEditAreOffWithoutAnAdminToken() async throws {
        let server = try TestServer()
        await server.post()
        let delete = await server.request("DELETE", "/api/v1/posters/1", headers: [("Authorization", "Bearer anything-at-all-here")])
        #expect(delete.status == 403)
        #expect(delete.errorMessage?.contains("off") == true)
        let patch = await server.request("PATCH", "/api/v1/posters/1", json: #"{"contents": "x"}"#)
        #expect(patch.status == 403)
        #expect(await server.request("GET", "/api/v1/posters/1").status == 200)
    }

    @Test func deleteNeedsTheRightTokenAndRemovesThePosterAndItsImages() async throws {
        let server = try TestServer { $0.adminToken = Self.token }
        let digest = Self.digest(await server.post().json)
        #expect(await server.request("GET", "/blobs/\(digest)").status == 200)
        #expect(await server.request("GET", "/thumbs/\(digest)?w=160").status == 200)  // now in the cache
        let none = await server.request("DELETE", "/api/v1/posters/1")
        #expect(none.status == 401)
        #expect(none.header("www-authenticate")?.hasPrefix("Bearer") == true)
        let wrong = await server.request("DELETE", "/api/v1/posters/1", headers: [("Authorization", "Bearer \(Self.token.dropLast())")])
        #expect(wrong.status == 401)
        #expect(wrong.errorKind == "unauthorized")
        let crossSite = await server.request("DELETE", "/api/v1/posters/1", headers: Self.auth + [("Origin", "http://evil.example")])
        #expect(crossSite.status == 403)
        let deleted = await server.request("DELETE", "/api/v1/posters/1", headers: Self.auth)
        #expect(deleted.status == 200)
        #expect(deleted.json["id"] as? Int == 1)
        #expect(await server.request("GET", "/api/v1/posters/1").status == 404)
        #expect(await server.request("GET", "/blobs/\(digest)").status == 404)
        // A moderator's delete takes the thumbnails with it, even the one the server had cached.
        #expect(await server.request("GET", "/thumbs/\(digest)?w=160").status == 404)
        #expect(await server.request("DELETE", "/api/v1/posters/1", headers: Self.auth).status == 404)
        let badEdit = await server.request("PATCH", "/api/v1/posters/1", json: "{}", headers: Self.auth)
        #expect(badEdit.status == 422)
    }

    @Test func patchEditsTheQuestionAndHashtagsKeepingIdImagesAndVotes() async throws {
        let server = try TestServer { $0.adminToken = Self.token }
        let before = await server.post(contents: "old", hashtags: ["a"]).json
        await server.vote(1, side: 2, times: 4)
        let edited = await server.request("PATCH", "/api/v1/posters/1", json: #"{"contents": "新しい質問"}"#, headers: Self.auth)
        #expect(edited.status == 200, "\(edited.text)")
        #expect(edited.json["contents"] as? String == "新しい質問")
        #expect(edited.json["hashtags"] as? [String] == ["a"])
        #expect(edited.json["good2"] as? Int == 4)
        #expect(
            (edited.json["images"] as? [[String: Any]])?.map { $0["digest"] as? String }
                == (before["images"] as? [[String: Any]])?.map { $0["digest"] as? String })
        let tags = await server.request("PATCH", "/api/v1/posters/1", json: ##"{"hashtags": ["#x", "y"]}"##, headers: Self.auth)
        #expect(tags.json["hashtags"] as? [String] == ["x", "y"])
        #expect(tags.json["contents"] as? String == "新しい質問")
        #expect(await server.request("GET", "/api/v1/search?q=%E8%B3%AA%E5%95%8F").json["posters"].map { ($0 as? [Any])?.count } == 1)
        let wrongType = await server.request("PATCH", "/api/v1/posters/1", json: #"{"contents": 5}"#, headers: Self.auth)
        #expect(wrongType.status == 422)
        let missing = await server.request("PATCH", "/api/v1/posters/7", json: #"{"contents": "x"}"#, headers: Self.auth)
        #expect(missing.status == 404)
    }

    @Test func requestsCarryingTheAdminTokenAreNotRateLimitedAndOthersStillAre() async throws {
        let server = try TestServer {
            $0.adminToken = "bulk-posting-token-0123456789"
            $0.postRate = Rate(perSecond: 0.000_001, burst: 1)
            $0.voteRate = Rate(perSecond: 0.000_001, burst: 1)
        }
        let auth = [("Authorization", "Bearer bulk-posting-token-0123456789")]
        // Before, a script holding the token still got 429 after the burst: a thousand
        // photos at the default one every 5 s took 83 minutes.
        for index in 1...6 {
            let reply = await server.post(contents: "photo \(index)", headers: auth)
            #expect(reply.status == 201, "post \(index): \(reply.text)")
        }
        for _ in 1...3 {
            let vote = await server.vote(1, side: 1, headers: auth)
            #expect(vote.status == 200, "\(vote.text)")
        }
        // Without the token, or with a wrong one, the limits hold.
        for authorization in [[], [("Authorization", "Bearer wrong-token-0123456789")]] {
            let reply = await server.post(contents: "photo 9", headers: authorization)
            #expect(reply.status == (authorization.isEmpty ? 201 : 429), "\(authorization): \(reply.text)")
        }
        #expect(await server.vote(1, side: 2).status == 200)
        #expect(await server.vote(1, side: 2).status == 429)
    }
}
