import Foundation
import Testing

extension ServeEndToEndTests {
    /// `tenbin serve` on a free loopback port, driven over real sockets: every route wired to the
    /// socket, the answers' shape against the command line's, startup errors, the log and the
    /// rate flags. What each route does is tested in process (Tests/TenbinServerTests).
    @Suite(.timeLimit(.minutes(10))) struct ServeAPITests {
        static let cat = "\(Tenbin.root)/SampleImages/01-cats-or-dogs/1-cat.jpg"
        static let dog = "\(Tenbin.root)/SampleImages/01-cats-or-dogs/2-dog.jpg"

        /// Posts a poster through the API and returns its JSON object.
        @discardableResult
        static func post(_ server: ServeProcess, contents: String = "cats or dogs", hashtags: [String] = []) throws -> [String: Any] {
            var form = Multipart()
            try form.file("image1", path: cat)
            try form.file("image2", path: dog)
            form.field("contents", contents)
            for tag in hashtags { form.field("hashtags", tag) }
            let reply = try server.request("POST", "/api/v1/posters", headers: [("Content-Type", form.contentType)], body: form.body)
            #expect(reply.status == 201, "\(reply.text)")
            return reply.json
        }

        @Test func aPostedPosterIsAnsweredInExactlyTheCommandLinesJSONShape() throws {
            let server = try ServeProcess()
            var form = Multipart()
            try form.file("image1", path: Self.cat)
            try form.file("image2", path: Self.dog)
            form.field("contents", "猫か犬か")
            form.field("hashtags", "#ねこ")
            form.field("hashtags", "dogs")
            let created = try server.request("POST", "/api/v1/posters", headers: [("Content-Type", form.contentType)], body: form.body)
            #expect(created.status == 201)
            #expect(created.headers["location"] == "/api/v1/posters/1")
            #expect(created.headers["content-type"] == "application/json; charset=utf-8")
            let show = try Tenbin.run(["show", "1", "--json"], store: server.store)
            #expect(show.status == 0)
            #expect(created.text == show.stdout, "the API's poster is the CLI's --json poster, byte for byte")
            let fetched = try server.request("GET", "/api/v1/posters/1")
            #expect(fetched.status == 200)
            #expect(fetched.text == show.stdout)
            #expect(created.json["hashtags"] as? [String] == ["ねこ", "dogs"])
        }

        @Test func aBlobKeptInMemoryIsAnsweredTheSameOnEveryConnectionUntilItsFileGoes() throws {
            let server = try ServeProcess()
            let poster = try Self.post(server)
            let digest = try #require((poster["images"] as? [[String: Any]])?.first?["digest"] as? String)
            let path = "\(server.store)/blobs/\(digest.prefix(2))/\(digest)"
            let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            // The first answer reads the file and keeps the answer; the later ones, on other
            // connections and kept-alive ones, send that answer as it was made.
            let connections = try (0..<3).map { _ in try server.connect() }
            var heads: [[String: String]] = []
            for _ in 0..<3 {
                for connection in connections {
                    let reply = try connection.request("GET", "/blobs/\(digest)")
                    #expect(reply.status == 200)
                    #expect(reply.body == file)
                    heads.append(reply.headers.filter { $0.key != "date" })
                }
            }
            #expect(Set(heads.map { $0.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" } }).count == 1)
            #expect(heads[0]["content-type"] == "image/jpeg")
            #expect(heads[0]["etag"] == "\"\(digest)\"")
            #expect(heads[0]["x-content-type-options"] == "nosniff")
            #expect(heads[0]["cross-origin-resource-policy"] == "cross-origin")
            #expect(heads[0]["content-length"] == String(file.count))
            let head = try connections[0].request("HEAD", "/blobs/\(digest)")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(try connections[1].request("GET", "/blobs/\(digest)", headers: [("If-None-Match", "\"\(digest)\"")]).status == 304)
            try FileManager.default.removeItem(atPath: path)
            #expect(try connections[2].request("GET", "/blobs/\(digest)").status == 404)
        }

        @Test func aShortOrMissingTokenFileStopsTheServerFromStarting() throws {
            let folder = try ScratchFolder()
            try "short\n".write(toFile: folder.path + "/token", atomically: true, encoding: .utf8)
            let short = try Tenbin.run(
                ["serve", "--listen", "127.0.0.1:0", "--admin-token-file", folder.path + "/token"], store: folder.path + "/s")
            #expect(short.status != 0)
            #expect(short.stderr.contains("shorter than 16"), "\(short.stderr)")
            let missing = try Tenbin.run(
                ["serve", "--listen", "127.0.0.1:0", "--admin-token-file", folder.path + "/none"], store: folder.path + "/s")
            #expect(missing.status != 0)
            #expect(missing.stderr.hasPrefix("Error: cannot read the admin token file"), "\(missing.stderr)")
            let badListen = try Tenbin.run(["serve", "--listen", "localhost"], store: folder.path + "/s")
            #expect(badListen.status != 0)
            #expect(badListen.stderr.contains("--listen"), "\(badListen.stderr)")
        }

        @Test func eachRequestIsLoggedAndTheServerStopsCleanlyOnSIGTERM() throws {
            let server = try ServeProcess()
            _ = try server.request("GET", "/healthz")
            _ = try server.request("GET", "/api/v1/posters/9")
            let (status, log) = server.stop()
            #expect(status == 0)
            let lines = log.split(separator: "\n")
            #expect(lines.contains { $0.contains("127.0.0.1 GET /healthz 200 ") && $0.hasSuffix("ms") }, "\(log)")
            #expect(lines.contains { $0.contains("GET /api/v1/posters/9 404 ") }, "\(log)")

            let json = try ServeProcess(["--log-json"])
            _ = try json.request("GET", "/healthz?x=1")
            let (jsonStatus, jsonLog) = json.stop(signal: SIGINT)
            #expect(jsonStatus == 0)
            let object = jsonLog.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            .first
            #expect(object?["method"] as? String == "GET")
            #expect(object?["path"] as? String == "/healthz")
            #expect(object?["status"] as? Int == 200)
            #expect(object?["ms"] is Double || object?["ms"] is Int)
        }

        @Test func everyRouteIsWiredToTheSocket() throws {
            // Route behaviour is tested in process (Tests/TenbinServerTests/*RoutesTests); here
            // the binary answers each route over a real connection, with its flags applied: the
            // token file is read with its white space trimmed.
            let folder = try ScratchFolder()
            let tokenFile = folder.path + "/token"
            try "  wired-token-for-tests-0123456789\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
            let server = try ServeProcess(["--admin-token-file", tokenFile])
            let poster = try Self.post(server, contents: "キノコの山")
            let digest = ((poster["images"] as? [[String: Any]])?.first?["digest"] as? String) ?? ""
            let page = try server.request("GET", "/")
            #expect(page.status == 200 && page.text.contains("キノコの山"))
            let script = try #require(
                page.text.firstRange(of: "/static/app.js?v=").map { page.text[$0.lowerBound...].prefix { $0 != "\"" } })
            #expect(try server.request("GET", String(script)).status == 200)
            #expect(try server.request("GET", "/healthz").json["status"] as? String == "ok")
            let blob = try server.request("GET", "/blobs/\(digest)")
            #expect(blob.status == 200)
            let file = try Data(contentsOf: URL(fileURLWithPath: "\(server.store)/blobs/\(digest.prefix(2))/\(digest)"))
            #expect(Data(blob.body) == file)
            let head = try server.request("HEAD", "/blobs/\(digest)")
            #expect(head.status == 200 && head.headers["content-length"] == String(file.count) && head.body.isEmpty)
            let thumb = try server.request("GET", "/thumbs/\(digest)?w=160")
            #expect(thumb.status == 200 && thumb.body.starts(with: [0xFF, 0xD8, 0xFF]))
            #expect(try server.request("GET", "/api/v1/posters").json["posters"].map { ($0 as? [Any])?.count } == 1)
            #expect(
                try server.request("GET", "/api/v1/search?q=%E3%81%8D%E3%81%AE%E3%81%93").json["posters"].map { ($0 as? [Any])?.count } == 1
            )
            #expect(try server.postJSON("/api/v1/posters/1/votes", #"{"side": 2, "times": 3}"#).json["good2"] as? Int == 3)
            let auth = [("Authorization", "Bearer wired-token-for-tests-0123456789")]
            let edited = try server.request(
                "PATCH", "/api/v1/posters/1", headers: auth + [("Content-Type", "application/json")],
                body: Array(#"{"contents": "x"}"#.utf8))
            #expect(edited.status == 200 && edited.json["contents"] as? String == "x", "\(edited.text)")
            #expect(try server.request("GET", "/metrics").text.contains("tenbin_votes_committed_total 3"))
            let put = try server.request("PUT", "/api/v1/posters/1")
            #expect(put.status == 405 && put.headers["allow"] == "GET, HEAD, PATCH, DELETE")
            #expect(try server.request("DELETE", "/api/v1/posters/1", headers: auth).status == 200)
            let missing = try server.request("GET", "/api/v1/posters/1")
            #expect(missing.status == 404 && missing.errorKind == "not_found")
        }

        @Test func theRateFlagsSetTheLimitsAndABadRateStopsTheStart() throws {
            // Per-client budgets, proxies and the admin token's exemption are tested in process.
            let server = try ServeProcess(["--vote-rate", "0.01/3"])
            try Self.post(server)
            for _ in 0..<3 { #expect(try server.postJSON("/api/v1/posters/1/votes", #"{"side": 1}"#).status == 200) }
            let limited = try server.postJSON("/api/v1/posters/1/votes", #"{"side": 1}"#)
            #expect(limited.status == 429)
            #expect(limited.errorKind == "limit_exceeded")
            #expect(Int(limited.headers["retry-after"] ?? "") ?? 0 >= 1)
            #expect(try server.request("GET", "/api/v1/posters/1").json["good1"] as? Int == 3)

            let open = try ServeProcess(["--vote-rate", "0.01/1", "--no-rate-limit"])
            try Self.post(open)
            for _ in 0..<5 { #expect(try open.postJSON("/api/v1/posters/1/votes", #"{"side": 2}"#).status == 200) }
            let badRate = try Tenbin.run(["serve", "--vote-rate", "fast"], store: open.store)
            #expect(badRate.status == 64)
            #expect(badRate.stderr.contains("--vote-rate"))
        }
    }
}
