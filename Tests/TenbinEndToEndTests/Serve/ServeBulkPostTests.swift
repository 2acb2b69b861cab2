import Foundation
import Testing

extension ServeEndToEndTests {
    /// A script posting many photos through the HTTP API, as its operator's own job.
    @Suite(.timeLimit(.minutes(10))) struct ServeBulkPostTests {
        static func form(_ index: Int) throws -> Multipart {
            var form = Multipart()
            try form.file("image1", path: ServeAPITests.cat)
            try form.file("image2", path: ServeAPITests.dog)
            form.field("contents", "photo \(index)")
            return form
        }

        @Test func requestsCarryingTheAdminTokenAreNotRateLimitedAndOthersStillAre() throws {
            let folder = try ScratchFolder()
            let tokenFile = folder.path + "/token"
            let token = "bulk-posting-token-0123456789"
            try token.write(toFile: tokenFile, atomically: true, encoding: .utf8)
            let server = try ServeProcess(["--admin-token-file", tokenFile, "--post-rate", "0.01/1", "--vote-rate", "0.01/1"])
            // Before, a script holding the token still got 429 after the burst: a thousand
            // photos at the default one every 5 s took 83 minutes.
            for index in 1...6 {
                let form = try Self.form(index)
                let reply = try server.request(
                    "POST", "/api/v1/posters", headers: [("Content-Type", form.contentType), ("Authorization", "Bearer \(token)")],
                    body: form.body)
                #expect(reply.status == 201, "post \(index): \(reply.text)")
            }
            for _ in 1...3 {
                let vote = try server.postJSON("/api/v1/posters/1/votes", #"{"side": 1}"#, headers: [("Authorization", "Bearer \(token)")])
                #expect(vote.status == 200, "\(vote.text)")
            }
            // Without the token, or with a wrong one, the limits hold.
            for authorization in [[], [("Authorization", "Bearer wrong-token-0123456789")]] {
                let form = try Self.form(9)
                let reply = try server.request(
                    "POST", "/api/v1/posters", headers: [("Content-Type", form.contentType)] + authorization, body: form.body)
                #expect(reply.status == (authorization.isEmpty ? 201 : 429), "\(authorization): \(reply.text)")
            }
            #expect(try server.postJSON("/api/v1/posters/1/votes", #"{"side": 2}"#).status == 200)
            #expect(try server.postJSON("/api/v1/posters/1/votes", #"{"side": 2}"#).status == 429)
        }
    }
}
