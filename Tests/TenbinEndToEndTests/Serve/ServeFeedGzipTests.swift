import Foundation
import Testing

extension ServeEndToEndTests {
    /// Live feeds compressed for clients that take gzip: the same events, each decodable as soon
    /// as it arrives (curl decompressing as it reads, the way a browser does), and the plain
    /// stream unchanged for clients that do not ask.
    @Suite(.timeLimit(.minutes(10))) struct ServeFeedGzipTests {
        typealias Event = ServeFeedTests.Event

        /// Opens a feed with `headers` and returns the connection and the response head.
        static func open(_ server: ServeProcess, _ query: String, headers: [String]) throws -> (HTTPConnection, String) {
            let connection = try server.connect()
            try connection.send("GET /api/v1/feed\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers.map { $0 + "\r\n" }.joined())\r\n")
            let head = try connection.read(until: "\r\n\r\n")
            #expect(head.hasPrefix("HTTP/1.1 200"))
            #expect(head.contains("Content-Type: text/event-stream"))
            #expect(head.contains("Vary: Accept-Encoding"))
            #expect(head.contains("X-Accel-Buffering: no"))
            return (connection, head)
        }

        /// `curl --compressed -N` reading the feed: it decompresses each piece as it arrives.
        static func curl(_ server: ServeProcess, _ query: String) throws -> WatchProcess {
            try WatchProcess(program: "/usr/bin/curl", ["-sSN", "--compressed", "http://127.0.0.1:\(server.port)/api/v1/feed\(query)"])
        }

        /// The next event curl printed (skipping comments and the retry line), within 30 s.
        static func nextEvent(_ curl: WatchProcess) throws -> Event {
            let deadline = Date().addingTimeInterval(30)
            var event = Event(name: "", data: "")
            while true {
                let line = try curl.nextLine(within: max(0.1, deadline.timeIntervalSinceNow))
                if line.isEmpty {
                    if !event.name.isEmpty { return event }
                    event = Event(name: "", data: "")
                }
                if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { event.data = String(line.dropFirst(6)) }
                if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)) }
            }
        }

        @Test func aClientTakingGzipGetsTheSameEventsCompressedEachAsItHappens() throws {
            let folder = try ScratchFolder()
            let server = try ServeProcess(["--no-rate-limit", "--heartbeat", "1"], store: folder.path)
            try ServeAPITests.post(server, contents: "first")
            try ServeAPITests.post(server, contents: "second")
            let query = "?sort=popular&limit=5"

            // The answer names gzip, and its body is a gzip member (magic bytes 1f 8b).
            let (raw, head) = try Self.open(server, query, headers: ["Accept-Encoding: gzip, deflate, br"])
            #expect(head.contains("Content-Encoding: gzip"))
            #expect(head.contains("Transfer-Encoding: chunked"))
            let firstChunkSize = try raw.read(until: "\r\n")
            #expect(Int(firstChunkSize.trimmingCharacters(in: .whitespacesAndNewlines), radix: 16).map { $0 > 2 } == true)
            #expect(try raw.read(until: [0x1F, 0x8B]) == [0x1F, 0x8B], "the body starts with gzip's magic bytes")
            raw.close()

            let plain = try ServeFeedTests.open(server, query)
            let curl = try Self.curl(server, query)
            let snapshot = try ServeFeedTests.nextEvent(plain)
            #expect(snapshot.name == "snapshot")
            #expect(try Self.nextEvent(curl) == snapshot)

            // A vote reaches the compressed feed while it stays open: its event was flushed, not
            // held back until more data came.
            #expect(try Tenbin.run(["vote", "2", "1"], store: server.store).status == 0)
            let vote = try ServeFeedTests.nextEvent(plain)
            #expect(vote.name == "modified")
            #expect(try Self.nextEvent(curl) == vote)

            // A heartbeat alone gets through too.
            #expect(try curl.nextLine() == ": heartbeat")

            // Stopping the server ends the gzip member properly: curl reads it to the end and
            // succeeds (a truncated member would make it fail).
            #expect(server.stop().status == 0)
            let (status, stderr, _) = try curl.waitForExit()
            #expect(status == 0, "\(stderr)")
        }

        @Test func aGzippedFeedPassesThroughTheDocumentedNginxUnbuffered() throws {
            // A five-minute heartbeat: only the server's watch on each feed's socket can notice
            // the clients leaving below.
            let server = try ServeProcess(["--no-rate-limit", "--trust-proxy", "--heartbeat", "300"])
            try ServeAPITests.post(server, contents: "through nginx")
            // docs/postgres.md's nginx block, both of its upstreams pointing at this one server.
            let nginx = try LoadBalancer([server.port, server.port])
            let head = try nginx.connect()
            try head.send("GET /api/v1/feed HTTP/1.1\r\nHost: 127.0.0.1:\(nginx.port)\r\nAccept-Encoding: gzip\r\n\r\n")
            let answer = try head.read(until: "\r\n\r\n")
            #expect(answer.contains("Content-Encoding: gzip") && answer.contains("Vary: Accept-Encoding"), "\(answer)")
            head.close()
            let curl = try WatchProcess(program: "/usr/bin/curl", ["-sSN", "--compressed", "http://127.0.0.1:\(nginx.port)/api/v1/feed"])
            let snapshot = try Self.nextEvent(curl)
            #expect(snapshot.name == "snapshot" && snapshot.data.contains("through nginx"), "\(snapshot)")
            #expect(try Tenbin.run(["vote", "1", "2"], store: server.store).status == 0)
            let vote = try Self.nextEvent(curl)
            #expect(vote.name == "modified" && vote.data.contains("\"good2\": 1"), "\(vote)")
            // nginx stops gracefully, waiting for its open connections: curl goes first.
            curl.killNow()
            // nginx closes its upstream connection when its client leaves, and the server closes
            // the feed then (both clients above are gone).
            #expect(try ServeFeedTests.feedsOpen(server, settlingAt: 0) == 0)
            withExtendedLifetime(nginx) {}
        }

        @Test func aClientThatDoesNotTakeGzipGetsThePlainStreamUnchanged() throws {
            let server = try ServeProcess(["--no-rate-limit"])
            try ServeAPITests.post(server, contents: "first")
            var bodies: [String] = []
            for headers in [[], ["Accept-Encoding: gzip;q=0, identity"], ["Accept-Encoding: br"], ["Accept-Encoding: GZIP; q=0.0"]] {
                let (feed, head) = try Self.open(server, "", headers: headers)
                #expect(!head.contains("Content-Encoding"), "\(headers)")
                let body = try feed.readChunked(until: "event: snapshot\n") + feed.readChunked(until: "\n\n")
                #expect(body.hasPrefix("retry: 2000\n\nid: "), "\(headers)")
                bodies.append(body)
                feed.close()
            }
            #expect(Set(bodies).count == 1, "every plain client gets the same bytes")
        }
    }
}
