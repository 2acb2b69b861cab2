import Foundation
import Testing

/// Live feeds as server-sent events: the snapshot and every change, with exactly the data
/// lines `tenbin watch --json` prints, heartbeats, clients that leave, and a clean stop.
@Suite(.timeLimit(.minutes(3))) struct ServeFeedTests {
    /// One event: its name and its data line.
    struct Event: Equatable {
        var name: String
        var data: String
    }

    /// Reads the next event (skipping comments and the retry line), from a stream opened with
    /// `open`.
    static func nextEvent(_ connection: HTTPConnection) throws -> Event {
        while true {
            let block = try connection.readChunked(until: "\n\n")
            var name = ""
            var data = ""
            for line in block.split(separator: "\n") {
                if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
            }
            if !name.isEmpty { return Event(name: name, data: data) }
        }
    }

    /// Opens a feed and reads the response head; the body is read event by event after.
    static func open(_ server: ServeProcess, _ query: String = "") throws -> HTTPConnection {
        let connection = try server.connect()
        try connection.send("GET /api/v1/feed\(query) HTTP/1.1\r\nHost: x\r\n\r\n")
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
        // The next heartbeat finds the connections gone.
        var open = -1
        for _ in 0..<50 where open != 0 {
            usleep(200_000)
            let metrics = try server.request("GET", "/metrics").text
            open =
                metrics.split(separator: "\n").first { $0.hasPrefix("tenbin_live_feeds ") }.flatMap { Int($0.split(separator: " ")[1]) }
                ?? -1
        }
        #expect(open == 0)
        #expect(try server.request("GET", "/healthz").status == 200)
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

    @Test func badFeedParametersAreAnsweredAsJSONErrors() throws {
        let server = try ServeProcess()
        let reply = try server.request("GET", "/api/v1/feed?sort=sideways")
        #expect(reply.status == 400)
        #expect(reply.errorMessage?.contains("sort") == true)
        #expect(try server.request("GET", "/api/v1/feed?limit=1000").status == 400)
    }
}
