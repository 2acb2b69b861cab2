import Foundation
import TestPostgresServer
import Testing

extension ServeEndToEndTests {
    /// The read cache of `tenbin serve` (pages, search pages and posters encoded once per store
    /// version) against changes committed by the server itself and by other processes, its
    /// entity tags, and the request log when nobody reads standard error.
    @Suite(.timeLimit(.minutes(10))) struct ServeReadCacheTests {
        /// The value of a counter or gauge in `GET /metrics`.
        static func metric(_ server: ServeProcess, _ name: String) throws -> Int? {
            let text = try server.request("GET", "/metrics").text
            let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
            return line.flatMap { Int($0.split(separator: " ").last ?? "") }
        }

        /// good1 of poster `id` in a page or search answer.
        static func good1(_ reply: HTTPReply, id: Int) -> Int? {
            let posters = reply.json["posters"] as? [[String: Any]] ?? []
            return posters.first { $0["id"] as? Int == id }?["good1"] as? Int
        }

        @Test func theWebPageIsCachedRevalidatedAndNeverOutlivesAChange() throws {
            let server = try ServeProcess(["--no-rate-limit"])
            try ServeAPITests.post(server, contents: "cats or dogs")
            let connection = try server.connect()
            defer { connection.close() }
            for path in ["/", "/?sort=popular", "/?q=cats"] {
                let first = try connection.request("GET", path)
                let etag = try #require(first.headers["etag"], "\(path)")
                #expect(first.headers["cache-control"] == "no-cache")
                #expect(first.headers["content-security-policy"]?.contains("default-src 'self'") == true)
                let again = try connection.request("GET", path)
                #expect(again.text == first.text && again.headers["etag"] == etag)
                let unchanged = try connection.request("GET", path, headers: [("If-None-Match", etag)])
                #expect(unchanged.status == 304 && unchanged.text.isEmpty, "\(path)")
                // A vote by another process: the page shows it, under a new tag.
                #expect(try Tenbin.run(["vote", "1", "2"], store: server.store).status == 0)
                #expect(try Self.eventually { try connection.request("GET", path, headers: [("If-None-Match", etag)]).status == 200 })
                let changed = try connection.request("GET", path, headers: [("If-None-Match", etag)])
                #expect(changed.status == 200, "\(path)")
                #expect(changed.headers["etag"] != etag)
                #expect(changed.text != first.text)
            }
            #expect(try connection.request("GET", "/").text.contains(#"<span class="count">3</span>"#))
        }

        /// Whether `condition` holds within 10 s (or `seconds`): another process's commit reaches
        /// the server's read cache through its change source, within a documented delay
        /// (docs/http-api.md).
        static func eventually(within seconds: Int = 10, _ condition: () throws -> Bool) rethrows -> Bool {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while try !condition() {
                guard ContinuousClock.now < deadline else { return false }
                usleep(5_000)
            }
            return true
        }

        @Test func cachedReadsNeverOutliveAChangeCommittedByAnotherProcess() throws {
            let server = try ServeProcess(["--no-rate-limit"])
            try ServeAPITests.post(server, contents: "cats or dogs", hashtags: ["pets"])
            try ServeAPITests.post(server, contents: "tea or coffee")
            let paths = (
                page: "/api/v1/posters?sort=new&limit=20", popular: "/api/v1/posters?sort=popular&limit=1",
                poster: "/api/v1/posters/1", search: "/api/v1/search?q=cats"
            )
            let connection = try server.connect()
            defer { connection.close() }
            for round in 1...5 {
                // Asked twice: the second answer comes from the cache.
                for _ in 0..<2 {
                    #expect(Self.good1(try connection.request("GET", paths.page), id: 1) == round - 1)
                    #expect(try connection.request("GET", paths.poster).json["good1"] as? Int == round - 1)
                    #expect(Self.good1(try connection.request("GET", paths.search), id: 1) == round - 1)
                }
                // Another process votes; the server hears of it through its change source (a
                // watch on the write-ahead log), within its documented delay, and from then on
                // every cached read shows it.
                let vote = try Tenbin.run(["vote", "1", "1"], store: server.store)
                #expect(vote.status == 0, "\(vote.stderr)")
                #expect(try Self.eventually { Self.good1(try connection.request("GET", paths.page), id: 1) == round })
                #expect(try connection.request("GET", paths.poster).json["good1"] as? Int == round)
                #expect(Self.good1(try connection.request("GET", paths.search), id: 1) == round)
                let popular = try connection.request("GET", paths.popular).json["posters"] as? [[String: Any]]
                #expect(popular?.first?["id"] as? Int == 1)
            }
            #expect(try Self.metric(server, "tenbin_read_cache_hits_total") ?? 0 >= 15)

            // A vote through the server itself, then an edit and a delete by the command line.
            #expect(try server.postJSON("/api/v1/posters/2/votes", #"{"side": 2, "times": 3}"#).status == 200)
            #expect(try connection.request("GET", "/api/v1/posters/2").json["good2"] as? Int == 3)
            #expect(try Tenbin.run(["edit", "1", "--text", "birds or fish"], store: server.store).status == 0)
            #expect(try Self.eventually { try connection.request("GET", paths.poster).json["contents"] as? String == "birds or fish" })
            #expect((try connection.request("GET", paths.search).json["posters"] as? [[String: Any]])?.isEmpty == true)
            #expect(try Tenbin.run(["delete", "1"], store: server.store).status == 0)
            #expect(try Self.eventually { try connection.request("GET", paths.poster).status == 404 })
            let ids = (try connection.request("GET", paths.page).json["posters"] as? [[String: Any]])?.compactMap { $0["id"] as? Int }
            #expect(ids == [2])
        }

        @Test(.enabled(if: TestPostgresServer.suitesRun))
        func onPostgreSQLCachedReadsNeverOutliveAVoteFromAnotherProcess() throws {
            // The store version is the server's transaction snapshot, which any write moves,
            // also other tests' on the shared test server: this test counts cache hits, so it
            // has a server of its own.
            let cluster = "/tmp/tenbin-postgres-cache-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let started = try Shell.capture(["\(Tenbin.root)/scripts/postgres.sh", "start", cluster])
            defer { _ = try? Shell.capture(["\(Tenbin.root)/scripts/postgres.sh", "stop", cluster]) }
            try #require(started.status == 0, "could not start a PostgreSQL server: \(started.stderr)")
            let url = started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try Tenbin.run(["migrate", "--database", url]).status == 0)
            let folder = try ScratchFolder()  // the blob folder's parent must exist
            let server = try ServeProcess(["--database", url, "--no-rate-limit"], store: folder.path)
            try ServeAPITests.post(server, contents: "cats or dogs")
            let connection = try server.connect()
            defer { connection.close() }
            for round in 1...3 {
                for _ in 0..<2 {
                    #expect(try connection.request("GET", "/api/v1/posters/1").json["good1"] as? Int == round - 1)
                    #expect(Self.good1(try connection.request("GET", "/api/v1/posters"), id: 1) == round - 1)
                }
                let vote = try Tenbin.run(["vote", "1", "1", "--database", url], store: server.store)
                #expect(vote.status == 0, "\(vote.stderr)")
                #expect(try Self.eventually { try connection.request("GET", "/api/v1/posters/1").json["good1"] as? Int == round })
                #expect(try Self.eventually { Self.good1(try connection.request("GET", "/api/v1/posters"), id: 1) == round })
            }
            #expect(try Self.metric(server, "tenbin_read_cache_hits_total") ?? 0 >= 6)
        }

        @Test func aLogNobodyReadsNeverStallsRequestsAndItsDropsAreCounted() throws {
            let server = try ServeProcess(["--no-rate-limit"], readingStandardError: false)
            // Far more lines than a pipe's buffer and the log's queue hold together.
            let requests = 12_000
            var answered = 0
            let connection = try server.connect()
            defer { connection.close() }
            for _ in 0..<requests {
                if try connection.request("GET", "/nothing-here").status == 404 { answered += 1 }
            }
            #expect(answered == requests)
            #expect(try Self.metric(server, "tenbin_log_lines_dropped_total") ?? 0 > 0)
            #expect(try server.request("GET", "/api/v1/posters").status == 200)
            // Stopping does not wait for a log that cannot be written.
            #expect(server.stop().status == 0)
        }
    }
}
