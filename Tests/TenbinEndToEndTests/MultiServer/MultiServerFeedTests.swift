import Foundation
import TenbinKit
import Testing

extension MultiServerTests {
    /// What one server writes, the other serves and pushes to its live feeds: posters, votes,
    /// images and deletes cross from server to server through the database and the shared folder.
    @Suite(.timeLimit(.minutes(10))) struct MultiServerFeedTests {
        typealias Feed = ServeEndToEndTests.ServeFeedTests

        static let webp = "\(Tenbin.root)/Tests/Fixtures/formats/photo.webp"
        static let transparentPNG = "\(Tenbin.root)/Tests/Fixtures/colors/rgba-half-red.png"
        static let token = "multi-server-admin-token-0123456789"

        @Test func feedsOnOneServerSeeVotesPostsAndDeletesMadeOnTheOther() throws {
            let scratch = try ScratchFolder()
            try Self.token.write(toFile: scratch.path + "/token", atomically: true, encoding: .utf8)
            // Heartbeats rarer than a read's 30 s time-out: an event that never comes fails the test.
            let servers = try TwoServers(["--no-rate-limit", "--heartbeat", "120", "--admin-token-file", scratch.path + "/token"])
            let feedOnA = try Feed.open(servers.a, "?limit=10")
            let snapshot = try Feed.nextEvent(feedOnA)
            #expect(snapshot.name == "snapshot" && snapshot.data.contains("\"posters\": []"), "\(snapshot)")

            // A poster posted on B arrives on A's feed.
            let postedOnB = try ServeEndToEndTests.ServeAPITests.post(servers.b, contents: "posted on B")
            #expect(postedOnB["id"] as? Int == 1)
            let added = try Feed.nextEvent(feedOnA)
            #expect(added.name == "added", "\(added)")
            #expect(added.data.contains("\"id\": 1") && added.data.contains("posted on B"), "\(added)")

            // A vote cast on B arrives on A's feed with the new counts.
            let vote = try servers.b.postJSON("/api/v1/posters/1/votes", #"{"side": 2, "times": 3}"#)
            #expect(vote.status == 200, "\(vote.text)")
            let modified = try Feed.nextEvent(feedOnA)
            #expect(modified.name == "modified", "\(modified)")
            #expect(modified.data.contains("\"good1\": 0, \"good2\": 3"), "\(modified)")

            // A poster posted on A (a WebP photo and a transparent PNG) is served by B, images
            // and thumbnails too, with the bytes A stored in the shared folder.
            var form = Multipart()
            try form.file("image1", path: Self.webp)
            try form.file("image2", path: Self.transparentPNG)
            form.field("contents", "猫か犬か, posted on A")
            form.field("hashtags", "ねこ")
            let created = try servers.a.request("POST", "/api/v1/posters", headers: [("Content-Type", form.contentType)], body: form.body)
            #expect(created.status == 201, "\(created.text)")
            let onB = try servers.b.request("GET", "/api/v1/posters/2")
            #expect(onB.status == 200)
            #expect(onB.text == created.text, "B answers with the poster A created, byte for byte")
            let images = try #require(created.json["images"] as? [[String: Any]])
            let digests = images.compactMap { $0["digest"] as? String }
            #expect(images.compactMap { $0["format"] as? String } == ["jpeg", "png"])
            try #require(digests.count == 2)
            for (digest, type) in zip(digests, ["image/jpeg", "image/png"]) {
                let stored = try Data(contentsOf: URL(fileURLWithPath: "\(servers.store)/blobs/\(digest.prefix(2))/\(digest)"))
                let blob = try servers.b.request("GET", "/blobs/\(digest)")
                #expect(blob.status == 200)
                #expect(blob.headers["content-type"] == type)
                #expect(Data(blob.body) == stored, "B serves the file A wrote")
                let thumbOnA = try servers.a.request("GET", "/thumbs/\(digest)?w=160")
                let thumbOnB = try servers.b.request("GET", "/thumbs/\(digest)?w=160")
                #expect(thumbOnB.status == 200, "\(thumbOnB.text)")
                #expect(thumbOnB.headers["content-type"] == type)
                #expect(thumbOnB.body == thumbOnA.body && !thumbOnB.body.isEmpty)
            }
            let search = try servers.b.request("GET", "/api/v1/search?q=%E3%83%8D%E3%82%B3")  // ネコ finds #ねこ
            #expect((search.json["posters"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [2], "\(search.text)")
            let addedOnA = try Feed.nextEvent(feedOnA)
            #expect(addedOnA.name == "added" && addedOnA.data.contains("\"id\": 2"), "\(addedOnA)")

            // A delete on A (with the admin token) reaches a feed open on B, and its images go
            // from the shared folder for both.
            let feedOnB = try Feed.open(servers.b, "?limit=10")
            let snapshotOnB = try Feed.nextEvent(feedOnB)
            #expect(snapshotOnB.name == "snapshot" && snapshotOnB.data.contains("\"id\": 2"), "\(snapshotOnB)")
            let deleted = try servers.a.request("DELETE", "/api/v1/posters/2", headers: [("Authorization", "Bearer \(Self.token)")])
            #expect(deleted.status == 200, "\(deleted.text)")
            let removed = try Feed.nextEvent(feedOnB)
            #expect(removed.name == "removed" && removed.data.contains("\"id\": 2"), "\(removed)")
            let removedOnA = try Feed.nextEvent(feedOnA)
            #expect(removedOnA.name == "removed" && removedOnA.data.contains("\"id\": 2"), "\(removedOnA)")
            #expect(try servers.b.request("GET", "/api/v1/posters/2").status == 404)
            for digest in digests { #expect(try servers.b.request("GET", "/blobs/\(digest)").status == 404) }
            let check = try servers.check()
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
            #expect(check.stdout.contains("1 poster, 2 blobs"), "\(check.stdout)")
        }
    }
}
