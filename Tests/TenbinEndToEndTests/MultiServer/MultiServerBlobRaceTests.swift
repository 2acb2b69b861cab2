import Foundation
import TenbinKit
import Testing

extension MultiServerTests {
    /// Posts on one server and deletes on the other, of posters sharing the same two images: a
    /// delete removes the images no poster uses any more while the other server is adding a
    /// poster that uses them again. The database's advisory locks keyed by digest must keep
    /// every poster's images in the shared folder.
    @Suite(.timeLimit(.minutes(10))) struct MultiServerBlobRaceTests {
        static let images = [
            "\(Tenbin.root)/Tests/Fixtures/colors/progressive-azure.jpg", "\(Tenbin.root)/Tests/Fixtures/colors/gray-200.png",
        ]

        @Test func postsOnOneServerRacingDeletesOnTheOtherNeverLoseAPostersImages() throws {
            let scratch = try ScratchFolder()
            let token = "blob-race-admin-token-0123456789"
            try token.write(toFile: scratch.path + "/token", atomically: true, encoding: .utf8)
            let servers = try TwoServers(["--no-rate-limit", "--admin-token-file", scratch.path + "/token"])
            let (a, b) = (servers.a, servers.b)
            var form = Multipart()
            try form.file("image1", path: Self.images[0])
            try form.file("image2", path: Self.images[1])
            let body = form.body
            let contentType = form.contentType
            let auth = [("Authorization", "Bearer \(token)")]
            let first = try a.request("POST", "/api/v1/posters", headers: [("Content-Type", contentType)], body: body)
            #expect(first.status == 201, "\(first.text)")
            let digests = (first.json["images"] as? [[String: Any]] ?? []).compactMap { $0["digest"] as? String }
            try #require(digests.count == 2)

            // Each round, at once: A posts the two images again while B deletes the one poster
            // that used them, whose delete removes the images unless the new poster holds them.
            let rounds = 40
            var problems: [String] = []
            for round in 1...rounds {
                let outcome = Locked((posted: 0, deleted: 0, problem: ""))
                let go = DispatchSemaphore(value: 0)
                let pair = startThreads(2) { side in
                    go.wait()
                    do {
                        if side == 0 {
                            let reply = try a.request("POST", "/api/v1/posters", headers: [("Content-Type", contentType)], body: body)
                            outcome.withLock { $0.posted = reply.status }
                        } else {
                            let reply = try b.request("DELETE", "/api/v1/posters/\(round)", headers: auth)
                            outcome.withLock { $0.deleted = reply.status }
                        }
                    } catch {
                        outcome.withLock { $0.problem = "\(error)" }
                    }
                }
                go.signal()
                go.signal()
                pair.wait()
                let seen = outcome.withLock { $0 }
                if seen.posted != 201 || seen.deleted != 200 || !seen.problem.isEmpty { problems.append("round \(round): \(seen)") }
                // The new poster's images are in the shared folder, for both servers.
                for server in servers.servers {
                    for digest in digests where (try? server.request("GET", "/blobs/\(digest)").status) != 200 {
                        problems.append("round \(round): poster \(round + 1)'s image \(digest.prefix(12)) is gone on port \(server.port)")
                    }
                }
            }
            #expect(problems.isEmpty, "\(problems.prefix(5))")
            #expect(try servers.database.query("SELECT id FROM poster").compactMap { Int($0) } == [rounds + 1])
            let check = try servers.check()
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }
}
