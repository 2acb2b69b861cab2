import Foundation
import Testing

extension ServeEndToEndTests {
    /// `tenbin serve` on a free loopback port, driven over real sockets: every endpoint of the
    /// JSON API with its answers and its errors.
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

        @Test func pagesFollowTheirCursorsThroughEveryPosterOnce() throws {
            let server = try ServeProcess(["--no-rate-limit"])
            for index in 1...7 { try Self.post(server, contents: "poster \(index)") }
            var ids: [Int] = []
            var path = "/api/v1/posters?limit=3"
            var pages = 0
            while pages < 10 {
                let reply = try server.request("GET", path)
                #expect(reply.status == 200)
                let posters = reply.json["posters"] as? [[String: Any]] ?? []
                ids += posters.compactMap { $0["id"] as? Int }
                pages += 1
                guard let next = reply.json["next"] as? String else { break }
                path = "/api/v1/posters?limit=3&cursor=\(next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? next)"
            }
            #expect(ids == [7, 6, 5, 4, 3, 2, 1])
            #expect(pages == 3)
            // Without JavaScript, the page's "More posters" link carries the cursor too.
            for index in 8...25 { try Self.post(server, contents: "poster \(index)") }
            let first = try server.request("GET", "/")
            let more = try #require(first.text.firstMatch(of: /href="\/\?[^"]*cursor=([A-Za-z0-9.\-]+)/)).output.1
            let second = try server.request("GET", "/?cursor=\(more)")
            #expect(second.status == 200)
            #expect(first.text.contains(">poster 25<") && !second.text.contains(">poster 25<"))
            #expect(second.text.contains(">poster 5<"))
            let popular = try server.request("GET", "/api/v1/posters?sort=popular&limit=100")
            #expect(popular.status == 200)
            #expect((popular.json["posters"] as? [Any])?.count == 25)
            #expect(popular.json["next"] == nil)
        }

        @Test(arguments: [
            ("/api/v1/posters?sort=oldest", "sort"), ("/api/v1/posters?limit=0", "limit"), ("/api/v1/posters?limit=101", "limit"),
            ("/api/v1/posters?limit=abc", "limit"), ("/api/v1/posters?cursor=zzz", "cursor"), ("/api/v1/posters?q=%E3%81", "UTF-8"),
            ("/api/v1/posters?q=%zz", "percent"), ("/api/v1/search?q=a&sort=x", "sort"),
            ("/thumbs/\(String(repeating: "a", count: 64))?w=100", "w must"),
        ])
        func badQueryParametersAreRefusedWith400NamingTheParameter(path: String, word: String) throws {
            let server = try ServeProcess()
            let reply = try server.request("GET", path)
            #expect(reply.status == 400, "\(path): \(reply.text)")
            #expect(reply.errorKind == "invalid_input")
            #expect(reply.errorMessage?.contains(word) == true, "\(reply.text)")
        }

        @Test func missingThingsAre404AndWrongMethodsAre405WithAllow() throws {
            let server = try ServeProcess()
            try Self.post(server)
            for path in [
                "/api/v1/posters/99", "/api/v1/posters/abc", "/api/v1/posters/0", "/nothing", "/api/v2/posters", "/blobs/xyz",
                "/blobs/\(String(repeating: "0", count: 64))", "/static/missing.js", "/api/v1/posters/1/votes/2",
            ] {
                let reply = try server.request("GET", path)
                #expect(reply.status == 404, "\(path)")
                #expect(reply.errorKind == "not_found", "\(path)")
                #expect(reply.headers["content-type"] == "application/json; charset=utf-8")
            }
            let put = try server.request("PUT", "/api/v1/posters/1")
            #expect(put.status == 405)
            #expect(put.errorKind == "method_not_allowed")
            #expect(put.headers["allow"] == "GET, HEAD, PATCH, DELETE")
            #expect(put.errorMessage == "PUT is not allowed here; use GET, HEAD, PATCH or DELETE", "\(put.text)")
            let getVotes = try server.request("GET", "/api/v1/posters/1/votes")
            #expect(getVotes.status == 405)
            #expect(getVotes.headers["allow"] == "POST")
            #expect(getVotes.errorMessage == "GET is not allowed here; use POST")
            let postFeed = try server.request("POST", "/api/v1/feed", body: [])
            #expect(postFeed.status == 405)
        }

        @Test func votesAnswerWithTheNewCountsAndBadVotesAreRefused() throws {
            let server = try ServeProcess()
            try Self.post(server)
            let first = try server.postJSON("/api/v1/posters/1/votes", #"{"side": 1}"#)
            #expect(first.status == 200)
            #expect(first.json["good1"] as? Int == 1)
            let many = try server.postJSON("/api/v1/posters/1/votes", #"{"side": 2, "times": 5}"#)
            #expect(many.json["good2"] as? Int == 5)
            #expect(many.json["good1"] as? Int == 1)

            let cases: [(String, Int, String)] = [
                (#"{"side": 3}"#, 422, "side"), (#"{"side": "1"}"#, 422, "side"), (#"{}"#, 422, "side"),
                (#"{"side": 1, "times": 0}"#, 422, "times"), (#"{"side": 1, "times": 101}"#, 422, "times"),
                (#"{"side": 1, "times": 1.5}"#, 422, "times"), (#"{"side": 1, "extra": true}"#, 422, "extra"),
                (#"{"side": 1"#, 400, "JSON"), (#"[1]"#, 400, "object"), ("", 400, "JSON"),
                (String(repeating: "[", count: 500), 400, "JSON"),
            ]
            for (body, status, word) in cases {
                let reply = try server.postJSON("/api/v1/posters/1/votes", body)
                #expect(reply.status == status, "\(body): \(reply.text)")
                #expect(reply.errorMessage?.contains(word) == true, "\(body): \(reply.text)")
            }
            let missing = try server.postJSON("/api/v1/posters/42/votes", #"{"side": 1}"#)
            #expect(missing.status == 404)
            #expect(missing.errorKind == "not_found")
            let plain = try server.request(
                "POST", "/api/v1/posters/1/votes", headers: [("Content-Type", "text/plain")], body: Array(#"{"side": 1}"#.utf8))
            #expect(plain.status == 415)
            #expect(plain.errorKind == "unsupported_media_type")
            let untyped = try server.request("POST", "/api/v1/posters/1/votes", body: Array(#"{"side": 1}"#.utf8))
            #expect(untyped.status == 415)
            let large = try server.postJSON(
                "/api/v1/posters/1/votes", #"{"side": 1, "pad": ""# + String(repeating: " ", count: 2000) + "\"}")
            #expect(large.status == 413)
            #expect(large.errorKind == "limit_exceeded")
            let final = try server.request("GET", "/api/v1/posters/1")
            #expect(final.json["good1"] as? Int == 1)
            #expect(final.json["good2"] as? Int == 5)
        }

        @Test func crossSiteWritesAreRefusedAndSameSiteOnesPass() throws {
            let server = try ServeProcess()
            try Self.post(server)
            let vote = #"{"side": 1}"#
            let own = "http://127.0.0.1:\(server.port)"
            for (name, value) in [
                ("Origin", "http://evil.example"), ("Origin", "null"), ("Referer", "http://evil.example/page"),
                ("Origin", "http://127.0.0.1:1"),
            ] {
                let reply = try server.postJSON("/api/v1/posters/1/votes", vote, headers: [(name, value)])
                #expect(reply.status == 403, "\(name): \(value)")
                #expect(reply.errorKind == "forbidden")
            }
            #expect(try server.postJSON("/api/v1/posters/1/votes", vote, headers: [("Origin", own)]).status == 200)
            #expect(try server.postJSON("/api/v1/posters/1/votes", vote, headers: [("Referer", own + "/?q=x")]).status == 200)
            #expect(try server.postJSON("/api/v1/posters/1/votes", vote).status == 200)
            var form = Multipart()
            try form.file("image1", path: Self.cat)
            try form.file("image2", path: Self.dog)
            let post = try server.request(
                "POST", "/api/v1/posters", headers: [("Content-Type", form.contentType), ("Origin", "https://evil.example")],
                body: form.body)
            #expect(post.status == 403)
            #expect(try server.request("GET", "/api/v1/posters/1").json["good1"] as? Int == 3)
        }

        @Test func deleteAndEditAreOffWithoutAnAdminToken() throws {
            let server = try ServeProcess()
            try Self.post(server)
            let delete = try server.request("DELETE", "/api/v1/posters/1", headers: [("Authorization", "Bearer anything-at-all-here")])
            #expect(delete.status == 403)
            #expect(delete.errorMessage?.contains("off") == true)
            let patch = try server.request(
                "PATCH", "/api/v1/posters/1", headers: [("Content-Type", "application/json")], body: Array(#"{"contents": "x"}"#.utf8))
            #expect(patch.status == 403)
            #expect(try server.request("GET", "/api/v1/posters/1").status == 200)
        }

        @Test func deleteNeedsTheRightTokenAndRemovesThePosterAndItsImages() throws {
            let folder = try ScratchFolder()
            let tokenFile = folder.path + "/token"
            try "  s3cret-token-for-tests-0123456789\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
            let server = try ServeProcess(["--admin-token-file", tokenFile])
            let poster = try Self.post(server)
            let digest = ((poster["images"] as? [[String: Any]])?.first?["digest"] as? String) ?? ""
            #expect(try server.request("GET", "/blobs/\(digest)").status == 200)
            #expect(try server.request("GET", "/thumbs/\(digest)?w=160").status == 200)  // now in the cache
            let none = try server.request("DELETE", "/api/v1/posters/1")
            #expect(none.status == 401)
            #expect(none.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
            let wrong = try server.request(
                "DELETE", "/api/v1/posters/1", headers: [("Authorization", "Bearer s3cret-token-for-tests-012345678")])
            #expect(wrong.status == 401)
            #expect(wrong.errorKind == "unauthorized")
            let auth = [("Authorization", "Bearer s3cret-token-for-tests-0123456789")]
            let crossSite = try server.request("DELETE", "/api/v1/posters/1", headers: auth + [("Origin", "http://evil.example")])
            #expect(crossSite.status == 403)
            let deleted = try server.request("DELETE", "/api/v1/posters/1", headers: auth)
            #expect(deleted.status == 200)
            #expect(deleted.json["id"] as? Int == 1)
            #expect(try server.request("GET", "/api/v1/posters/1").status == 404)
            #expect(try server.request("GET", "/blobs/\(digest)").status == 404)
            // A moderator's delete takes the thumbnails with it, even the one the server had cached.
            #expect(try server.request("GET", "/thumbs/\(digest)?w=160").status == 404)
            #expect(try server.request("DELETE", "/api/v1/posters/1", headers: auth).status == 404)
            let badEdit = try server.request(
                "PATCH", "/api/v1/posters/1", headers: auth + [("Content-Type", "application/json")], body: Array("{}".utf8))
            #expect(badEdit.status == 422)
        }

        @Test func patchEditsTheQuestionAndHashtagsKeepingIdImagesAndVotes() throws {
            let folder = try ScratchFolder()
            let tokenFile = folder.path + "/token"
            try "edit-token-0123456789abcdef".write(toFile: tokenFile, atomically: true, encoding: .utf8)
            let server = try ServeProcess(["--admin-token-file", tokenFile])
            let before = try Self.post(server, contents: "old", hashtags: ["a"])
            _ = try server.postJSON("/api/v1/posters/1/votes", #"{"side": 2, "times": 4}"#)
            let headers = [("Authorization", "Bearer edit-token-0123456789abcdef"), ("Content-Type", "application/json")]
            let edited = try server.request("PATCH", "/api/v1/posters/1", headers: headers, body: Array(#"{"contents": "新しい質問"}"#.utf8))
            #expect(edited.status == 200, "\(edited.text)")
            #expect(edited.json["contents"] as? String == "新しい質問")
            #expect(edited.json["hashtags"] as? [String] == ["a"])
            #expect(edited.json["good2"] as? Int == 4)
            #expect(
                (edited.json["images"] as? [[String: Any]])?.map { $0["digest"] as? String }
                    == (before["images"] as? [[String: Any]])?.map { $0["digest"] as? String })
            let tags = try server.request("PATCH", "/api/v1/posters/1", headers: headers, body: Array(##"{"hashtags": ["#x", "y"]}"##.utf8))
            #expect(tags.json["hashtags"] as? [String] == ["x", "y"])
            #expect(tags.json["contents"] as? String == "新しい質問")
            #expect(try server.request("GET", "/api/v1/search?q=%E8%B3%AA%E5%95%8F").json["posters"].map { ($0 as? [Any])?.count } == 1)
            let wrongType = try server.request("PATCH", "/api/v1/posters/1", headers: headers, body: Array(#"{"contents": 5}"#.utf8))
            #expect(wrongType.status == 422)
            let missing = try server.request("PATCH", "/api/v1/posters/7", headers: headers, body: Array(#"{"contents": "x"}"#.utf8))
            #expect(missing.status == 404)
        }

        @Test func aCursorFromAnotherOrderIsRefused() throws {
            let server = try ServeProcess(["--no-rate-limit"])
            for _ in 0..<3 { try Self.post(server) }
            let first = try server.request("GET", "/api/v1/posters?limit=1")
            let next = first.json["next"] as? String ?? ""
            #expect(!next.isEmpty)
            let encoded = next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? next
            #expect(try server.request("GET", "/api/v1/posters?limit=1&cursor=\(encoded)").status == 200)
            let other = try server.request("GET", "/api/v1/posters?limit=1&sort=popular&cursor=\(encoded)")
            #expect(other.status == 400, "\(other.text)")
            #expect(other.errorKind == "invalid_input")
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

        @Test func searchMatchesLikeTheCommandLineAndAnswersInItsShape() throws {
            let server = try ServeProcess()
            try Self.post(server, contents: "キノコの山", hashtags: ["お菓子"])
            try Self.post(server, contents: "sea or mountain")
            for query in ["ｷﾉｺ", "きのこ", "%23お菓子", "SEA", "山%E3%80%80キノコ"] {
                let reply = try server.request("GET", "/api/v1/search?q=\(query)")
                #expect(reply.status == 200)
                let ids = (reply.json["posters"] as? [[String: Any]])?.compactMap { $0["id"] as? Int }
                #expect(ids == (query == "SEA" ? [2] : [1]), "\(query)")
            }
            let empty = try server.request("GET", "/api/v1/search?q=%20%20")
            #expect(empty.text == "{\"posters\": []}\n")
            let cli = try Tenbin.run(["search", "ｷﾉｺ", "--json"], store: server.store)
            let api = try server.request("GET", "/api/v1/search?q=%EF%BD%B7%EF%BE%89%EF%BD%BA")
            let apiPosters = api.json["posters"] as? [[String: Any]] ?? []
            let cliPosters = (try? JSONSerialization.jsonObject(with: Data(cli.stdout.utf8))) as? [[String: Any]] ?? []
            #expect(apiPosters.map { $0["id"] as? Int } == cliPosters.map { $0["id"] as? Int })
        }

        @Test func blobsAreServedImmutablyWithEtagsAnd304() throws {
            let server = try ServeProcess()
            let poster = try Self.post(server)
            let digest = ((poster["images"] as? [[String: Any]])?.first?["digest"] as? String) ?? ""
            let reply = try server.request("GET", "/blobs/\(digest)")
            #expect(reply.status == 200)
            #expect(reply.headers["content-type"] == "image/jpeg")
            #expect(reply.headers["etag"] == "\"\(digest)\"")
            #expect(reply.headers["cache-control"] == "public, max-age=31536000, immutable")
            #expect(reply.headers["x-content-type-options"] == "nosniff")
            let file = try Data(contentsOf: URL(fileURLWithPath: "\(server.store)/blobs/\(digest.prefix(2))/\(digest)"))
            #expect(Data(reply.body) == file)
            let cached = try server.request("GET", "/blobs/\(digest)", headers: [("If-None-Match", "\"\(digest)\"")])
            #expect(cached.status == 304)
            #expect(cached.headers["etag"] == "\"\(digest)\"")
            let head = try server.request("HEAD", "/blobs/\(digest)")
            #expect(head.status == 200)
            #expect(head.headers["content-length"] == String(file.count))
            let upper = try server.request("GET", "/blobs/\(digest.uppercased())")
            #expect(upper.status == 404)
        }

        @Test func thumbnailsAreScaledCachedAndRefusedAtOtherWidths() throws {
            let server = try ServeProcess()
            let poster = try Self.post(server)
            let digest = ((poster["images"] as? [[String: Any]])?.first?["digest"] as? String) ?? ""
            // Several connections ask for the same thumbnail at once; all get the same bytes.
            let replies = try (0..<6).map { _ in try server.connect() }.map { connection in
                try connection.send("GET /thumbs/\(digest)?w=160 HTTP/1.1\r\nHost: x\r\n\r\n")
                return connection
            }.map { try $0.readReply() }
            #expect(Set(replies.map(\.body)).count == 1)
            let thumb = replies[0]
            #expect(thumb.status == 200)
            #expect(thumb.headers["content-type"] == "image/jpeg")
            #expect(thumb.headers["etag"] == "\"\(digest)-w160\"")
            #expect(thumb.headers["cache-control"] == "public, max-age=31536000, immutable")
            #expect(thumb.body.starts(with: [0xFF, 0xD8, 0xFF]))
            // The JPEG's frame header says how wide it is.
            let width = Self.jpegWidth(thumb.body)
            #expect(width == 160)
            let again = try server.request("GET", "/thumbs/\(digest)?w=160", headers: [("If-None-Match", "\"\(digest)-w160\"")])
            #expect(again.status == 304)
            #expect(try server.request("GET", "/thumbs/\(digest)?w=320").status == 200)
            let metrics = try server.request("GET", "/metrics").text
            #expect(metrics.contains("tenbin_thumbnail_cache_hits_total"))
            #expect(try server.request("GET", "/thumbs/\(String(repeating: "1", count: 64))?w=160").status == 404)
        }

        /// The width in a baseline or progressive JPEG's SOF marker.
        static func jpegWidth(_ bytes: [UInt8]) -> Int? {
            var index = 2
            while index + 9 < bytes.count {
                guard bytes[index] == 0xFF else { return nil }
                let marker = bytes[index + 1]
                let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                if marker == 0xC0 || marker == 0xC2 { return Int(bytes[index + 7]) << 8 | Int(bytes[index + 8]) }
                index += 2 + length
            }
            return nil
        }

        @Test func healthMetricsAndTheWebPageAnswerWithTheirHeaders() throws {
            let server = try ServeProcess()
            try Self.post(server, contents: "<script>alert(1)</script>")
            let health = try server.request("GET", "/healthz")
            #expect(health.status == 200)
            #expect(health.json["status"] as? String == "ok")
            let page = try server.request("GET", "/")
            #expect(page.status == 200)
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            #expect(
                page.headers["content-security-policy"]
                    == "default-src 'self'; img-src 'self' blob:; object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'"
            )
            #expect(page.headers["referrer-policy"] == "same-origin")
            #expect(page.headers["x-content-type-options"] == "nosniff")
            #expect(!page.text.contains("<script>alert"))
            #expect(try server.request("GET", "/?q=script").status == 200)
            _ = try server.postJSON("/api/v1/posters/1/votes", #"{"side": 2, "times": 3}"#)
            let metrics = try server.request("GET", "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
            #expect(metrics.text.contains("tenbin_http_requests_total{route=\"GET /healthz\",status=\"200\"} 1"))
            #expect(metrics.text.contains("tenbin_votes_committed_total 3"))
            #expect(metrics.text.contains("tenbin_http_request_duration_seconds_bucket{le=\"+Inf\"}"))
            #expect(metrics.text.contains("tenbin_live_feeds 0"))
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

        @Test func votesAndPostsAreRateLimitedPerClientAddress() throws {
            let server = try ServeProcess(["--vote-rate", "0.01/3"])
            try Self.post(server)
            for _ in 0..<3 { #expect(try server.postJSON("/api/v1/posters/1/votes", #"{"side": 1}"#).status == 200) }
            let limited = try server.postJSON("/api/v1/posters/1/votes", #"{"side": 1}"#)
            #expect(limited.status == 429)
            #expect(limited.errorKind == "limit_exceeded")
            #expect(Int(limited.headers["retry-after"] ?? "") ?? 0 >= 1)
            // A proxy's forwarded address is ignored unless the proxy is trusted.
            let forwarded = try server.postJSON("/api/v1/posters/1/votes", #"{"side": 1}"#, headers: [("X-Forwarded-For", "10.0.0.9")])
            #expect(forwarded.status == 429)
            #expect(try server.request("GET", "/api/v1/posters/1").json["good1"] as? Int == 3)

            let proxied = try ServeProcess(["--vote-rate", "0.01/1", "--trust-proxy"])
            try Self.post(proxied)
            #expect(
                try proxied.postJSON("/api/v1/posters/1/votes", #"{"side": 1}"#, headers: [("X-Forwarded-For", "10.0.0.1")]).status == 200)
            #expect(
                try proxied.postJSON("/api/v1/posters/1/votes", #"{"side": 1}"#, headers: [("X-Forwarded-For", "10.0.0.1")]).status == 429)
            #expect(
                try proxied.postJSON("/api/v1/posters/1/votes", #"{"side": 1}"#, headers: [("X-Forwarded-For", "203.0.113.5, 10.0.0.2")])
                    .status
                    == 200)

            let open = try ServeProcess(["--vote-rate", "0.01/1", "--no-rate-limit"])
            try Self.post(open)
            for _ in 0..<5 { #expect(try open.postJSON("/api/v1/posters/1/votes", #"{"side": 2}"#).status == 200) }
            let badRate = try Tenbin.run(["serve", "--vote-rate", "fast"], store: open.store)
            #expect(badRate.status == 64)
            #expect(badRate.stderr.contains("--vote-rate"))
        }
    }
}
