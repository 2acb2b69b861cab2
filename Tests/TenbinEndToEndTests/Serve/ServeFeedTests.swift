import Foundation
import Testing

extension ServeEndToEndTests {
    /// Live feeds as server-sent events: the snapshot and every change, with exactly the data
    /// lines `tenbin watch --json` prints, heartbeats, clients that leave, and a clean stop.
    @Suite(.timeLimit(.minutes(10))) struct ServeFeedTests {
        /// One event: its name, its data line and its id.
        struct Event: Equatable {
            var name: String
            var data: String
            var id = ""
        }

        /// Reads the next event (skipping comments and the retry line), from a stream opened with
        /// `open`.
        static func nextEvent(_ connection: HTTPConnection) throws -> Event {
            while true {
                let block = try connection.readChunked(until: "\n\n")
                var event = Event(name: "", data: "")
                for line in block.split(separator: "\n") {
                    if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)) }
                    if line.hasPrefix("data: ") { event.data = String(line.dropFirst(6)) }
                    if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)) }
                }
                if !event.name.isEmpty { return event }
            }
        }

        /// Opens a feed and reads the response head; the body is read event by event after.
        static func open(_ server: ServeProcess, _ query: String = "", lastEventID: String? = nil) throws -> HTTPConnection {
            let connection = try server.connect()
            let resume = lastEventID.map { "Last-Event-ID: \($0)\r\n" } ?? ""
            try connection.send("GET /api/v1/feed\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(resume)\r\n")
            let head = try connection.read(until: "\r\n\r\n")
            #expect(head.hasPrefix("HTTP/1.1 200"))
            #expect(head.contains("Content-Type: text/event-stream"))
            #expect(head.contains("Transfer-Encoding: chunked"))
            return connection
        }

        @Test func theFeedCarriesTheSnapshotThenEachChangeAsWatchJSONPrintsThem() throws {
            let folder = try ScratchFolder()
            let server = try ServeProcess(["--no-rate-limit"], store: folder.path)
            try ServeAPITests.post(server, contents: "first")
            let feed = try Self.open(server, "?sort=popular&limit=5")
            let watch = try WatchProcess(["watch", "--json", "--sort", "popular", "--limit", "5"], store: folder)
            let snapshot = try Self.nextEvent(feed)
            #expect(snapshot.name == "snapshot")
            #expect(snapshot.data == (try watch.nextLine()))

            // A vote cast by another process reaches the open feed.
            #expect(try Tenbin.run(["vote", "1", "2"], store: server.store).status == 0)
            let vote = try Self.nextEvent(feed)
            #expect(vote.name == "modified")
            #expect(vote.data == (try watch.nextLine()))
            #expect(vote.data.contains("\"good2\": 1"))

            try ServeAPITests.post(server, contents: "second")
            let added = try Self.nextEvent(feed)
            #expect(added.name == "added")
            #expect(added.data == (try watch.nextLine()))
            _ = try watch.interrupt()
        }

        @Test func heartbeatsKeepAnIdleFeedAliveAndALeavingClientIsForgotten() throws {
            let server = try ServeProcess(["--heartbeat", "1"])
            let feed = try Self.open(server)
            #expect(try Self.nextEvent(feed).name == "snapshot")
            #expect(try feed.readChunked(until: ": heartbeat\n\n").hasSuffix(": heartbeat\n\n"))
            let others = try (0..<5).map { _ in try Self.open(server) }
            #expect(try server.request("GET", "/metrics").text.contains("tenbin_live_feeds 6"))
            for other in others { other.close() }
            feed.close()
            #expect(try Self.feedsOpen(server, settlingAt: 0) == 0)
            #expect(try server.request("GET", "/healthz").status == 200)
        }

        /// A client that closes its connection is forgotten at once, not at the next heartbeat
        /// (here five minutes away): its suspended connection is closed when its socket hangs
        /// up. Feeds whose clients stay, plain or gzip, go on receiving events.
        @Test func aClientThatLeavesIsForgottenWithoutWaitingForAHeartbeat() throws {
            let folder = try ScratchFolder()
            let server = try ServeProcess(["--heartbeat", "300", "--no-rate-limit"], store: folder.path)
            try ServeAPITests.post(server, contents: "first")
            let staying = try Self.open(server)
            #expect(try Self.nextEvent(staying).name == "snapshot")
            let leaving = try (0..<4).map { _ in try Self.open(server) }
            for feed in leaving { #expect(try Self.nextEvent(feed).name == "snapshot") }
            let zipped = try server.connect()
            try zipped.send("GET /api/v1/feed HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n\r\n")
            #expect(try zipped.read(until: "\r\n\r\n").contains("Content-Encoding: gzip"))
            #expect(try Self.feedsOpen(server, settlingAt: 6) == 6)

            for feed in leaving { feed.close() }
            zipped.close()
            #expect(try Self.feedsOpen(server, settlingAt: 1) == 1)
            // The one left is still served.
            #expect(try Tenbin.run(["vote", "1", "1"], store: server.store).status == 0)
            #expect(try Self.nextEvent(staying).name == "modified")
            staying.close()
            #expect(try Self.feedsOpen(server, settlingAt: 0) == 0)
            #expect(server.stop().status == 0)
        }

        /// The server's count of open feeds (`/metrics`), read until it is `expected` or ten
        /// seconds have passed.
        static func feedsOpen(_ server: ServeProcess, settlingAt expected: Int) throws -> Int {
            var open = -1
            for _ in 0..<50 where open != expected {
                if open != -1 { usleep(200_000) }
                let metrics = try server.request("GET", "/metrics").text
                open =
                    metrics.split(separator: "\n").first { $0.hasPrefix("tenbin_live_feeds ") }.flatMap { Int($0.split(separator: " ")[1]) }
                    ?? -1
            }
            return open
        }

        @Test func stoppingTheServerEndsOpenFeedsAndExitsZero() throws {
            let server = try ServeProcess()
            let feeds = try (0..<20).map { _ in try Self.open(server) }
            for feed in feeds { #expect(try Self.nextEvent(feed).name == "snapshot") }
            let (status, log) = server.stop()
            #expect(status == 0)
            for feed in feeds { #expect(feed.readsLastChunk(), "the stream ends with its last chunk") }
            #expect(log.contains("GET /api/v1/feed 200"))
        }

        @Test func stoppingTheServerWithAFeedOpenClosesTheStoreAfterAnotherProcessVoted() throws {
            let folder = try ScratchFolder()
            let server = try ServeProcess(["--no-rate-limit"], store: folder.path)
            try ServeAPITests.post(server, contents: "first")
            let feed = try Self.open(server)
            #expect(try Self.nextEvent(feed).name == "snapshot")
            #expect(try Tenbin.run(["vote", "1", "2"], store: server.store).status == 0)
            #expect(try Self.nextEvent(feed).name == "modified")
            #expect(server.stop().status == 0)
            #expect(!folder.files().contains { $0.hasPrefix("tenbin.sqlite-") }, "\(folder.files())")
            #expect(try StoreCloseTests.votesInTheDatabaseFileAlone(folder) == "1")
        }

        @Test func aClientReconnectingWithLastEventIDGetsOnlyWhatChangedSince() throws {
            let server = try ServeProcess(["--no-rate-limit"])
            try ServeAPITests.post(server, contents: "first")
            try ServeAPITests.post(server, contents: "second")
            let query = "?sort=new&limit=5"
            var feed = try Self.open(server, query)
            let snapshot = try Self.nextEvent(feed)
            #expect(snapshot.name == "snapshot")
            #expect(!snapshot.id.isEmpty)
            #expect(try Tenbin.run(["vote", "1", "1"], store: server.store).status == 0)
            let voted = try Self.nextEvent(feed)
            #expect(voted.name == "modified")
            #expect(!voted.id.isEmpty && voted.id != snapshot.id)
            feed.close()

            // Reconnecting after the last event, nothing has changed: no snapshot, no event.
            feed = try Self.open(server, query, lastEventID: voted.id)
            #expect(try Tenbin.run(["vote", "2", "2", "--times", "2"], store: server.store).status == 0)
            let next = try Self.nextEvent(feed)
            #expect(next.name == "modified", "the first event is the vote made after reconnecting, not a snapshot")
            #expect(next.data.contains("\"id\": 2,") && next.data.contains("\"good2\": 2"))
            feed.close()

            // Missed while away: a vote and a new poster arrive as changes on reconnecting.
            #expect(try Tenbin.run(["vote", "1", "1"], store: server.store).status == 0)
            try ServeAPITests.post(server, contents: "third")
            feed = try Self.open(server, query, lastEventID: next.id)
            var missed = [try Self.nextEvent(feed), try Self.nextEvent(feed)]
            missed.sort { $0.name < $1.name }
            #expect(missed.map(\.name) == ["added", "modified"])
            #expect(missed[0].data.contains("\"contents\": \"third\""))
            #expect(missed[1].data.contains("\"id\": 1,") && missed[1].data.contains("\"good1\": 2"))
            feed.close()

            // An id this server never sent, or one for another feed: a fresh snapshot.
            for (other, id) in [(query, "nonsense"), ("?sort=popular&limit=5", next.id)] {
                let fresh = try Self.open(server, other, lastEventID: id)
                #expect(try Self.nextEvent(fresh).name == "snapshot")
                fresh.close()
            }
        }
    }
}
