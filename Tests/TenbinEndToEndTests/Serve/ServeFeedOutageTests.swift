import Foundation
import TestPostgresServer
import Testing

extension ServeDaemonEndToEndTests {
    /// Live feeds of a `tenbin serve` on PostgreSQL while the database goes away: within
    /// `--feed-grace` they stay open and then deliver one diff; past it they end with the
    /// documented error event. Each test has a PostgreSQL server of its own (it stops it).
    @Suite(.timeLimit(.minutes(10)), .enabled(if: TestPostgresServer.suitesRun)) struct ServeFeedOutageTests {
        typealias Feed = ServeEndToEndTests.ServeFeedTests

        /// A PostgreSQL server of the test's own, removed when released.
        final class Cluster {
            let folder = "/tmp/tenbin-postgres-outage-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let url: String

            init() throws {
                let started = try Shell.capture(["\(Tenbin.root)/scripts/postgres.sh", "start", folder])
                try #require(started.status == 0, "could not start a PostgreSQL server: \(started.stderr)")
                url = started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }

            /// Runs `scripts/postgres.sh COMMAND` on this server (restart, halt).
            func run(_ command: String) throws {
                let run = try Shell.capture(["\(Tenbin.root)/scripts/postgres.sh", command, folder])
                try #require(run.status == 0, "postgres.sh \(command): \(run.stderr)")
            }

            deinit { _ = try? Shell.capture(["\(Tenbin.root)/scripts/postgres.sh", "stop", folder]) }
        }

        /// A server on a fresh board on `cluster` with one poster.
        static func server(on cluster: Cluster, _ arguments: [String], folder: ScratchFolder) throws -> ServeProcess {
            #expect(try Tenbin.run(["migrate", "--database", cluster.url]).status == 0)
            let server = try ServeProcess(["--database", cluster.url, "--no-rate-limit"] + arguments, store: folder.path)
            try ServeEndToEndTests.ServeAPITests.post(server, contents: "cats or dogs")
            return server
        }

        @Test func aFeedOutlastsARestartOfPostgreSQLAndDeliversTheVoteAfterIt() throws {
            let cluster = try Cluster()
            let folder = try ScratchFolder()
            // Heartbeats rarer than a read's 30 s time-out: an event that never comes fails the test.
            let server = try Self.server(on: cluster, ["--heartbeat", "120"], folder: folder)
            let feed = try Feed.open(server, "?sort=popular&limit=5")
            let snapshot = try Feed.nextEvent(feed)
            #expect(snapshot.name == "snapshot" && snapshot.data.contains("\"good1\": 0"), "\(snapshot)")
            // `tenbin watch` shares the live feeds' code: it outlasts the restart too.
            let watch = try WatchProcess(
                ["watch", "--json", "--sort", "popular", "--limit", "5", "--database", cluster.url], store: folder)
            #expect(try watch.nextLine().contains("\"type\": \"snapshot\""))

            try cluster.run("restart")
            // Requests fail with 503 until the pool has replaced its dead connections.
            let deadline = ContinuousClock.now + .seconds(30)
            var vote = try server.postJSON("/api/v1/posters/1/votes", #"{"side": 1, "times": 2}"#)
            while vote.status == 503 && ContinuousClock.now < deadline {
                usleep(50_000)
                vote = try server.postJSON("/api/v1/posters/1/votes", #"{"side": 1, "times": 2}"#)
            }
            try #require(vote.status == 200, "\(vote.status) \(vote.text)")

            // One diff, to the counts now; no error event before it.
            let modified = try Feed.nextEvent(feed)
            #expect(modified.name == "modified", "\(modified)")
            #expect(modified.data.contains("\"good1\": 2, \"good2\": 0"), "\(modified)")
            let watched = try watch.nextLine()
            #expect(watched.contains("\"type\": \"modified\"") && watched.contains("\"good1\": 2"), "\(watched)")
            #expect(try server.request("GET", "/metrics").text.contains("tenbin_live_feeds 1"))
            let interrupted = try watch.interrupt()
            #expect(interrupted.status == 130, "\(interrupted.stderr)")
            #expect(interrupted.stderr.isEmpty, "\(interrupted.stderr)")
        }

        @Test func pastTheFeedGraceAFeedEndsWithTheUnavailableErrorEventAndHeartbeatsMeanwhile() throws {
            let cluster = try Cluster()
            let folder = try ScratchFolder()
            let server = try Self.server(on: cluster, ["--heartbeat", "1", "--feed-grace", "4"], folder: folder)
            let feed = try Feed.open(server, "?limit=5")
            #expect(try Feed.nextEvent(feed).name == "snapshot")
            let watch = try WatchProcess(["watch", "--json", "--limit", "5", "--database", cluster.url], store: folder)
            #expect(try watch.nextLine().contains("\"type\": \"snapshot\""))

            try cluster.run("halt")
            // The feed stays open through the grace, its heartbeats going on, then ends.
            let before = try feed.readChunked(until: "event: error\n")
            let heartbeats = before.components(separatedBy: ": heartbeat\n\n").count - 1
            #expect(heartbeats >= 2, "\(before.debugDescription)")
            let data = try feed.readChunked(until: "\n\n")
            #expect(
                data == #"data: {"error": {"kind": "unavailable", "message": "the store cannot answer now; try again shortly"}}"# + "\n\n",
                "\(data.debugDescription)")
            #expect(feed.readsLastChunk())
            // The watch (30 s by default) is still waiting; it is not this test's to wait that long.
            let interrupted = try watch.interrupt()
            #expect(interrupted.status == 130, "\(interrupted.stderr)")
        }
    }
}
