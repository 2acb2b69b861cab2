import Foundation
import TenbinKit
import TestPostgresServer
import Testing

extension ServeDaemonEndToEndTests {
    /// `tenbin serve --replica`: reads on a real hot standby made by `pg_basebackup`
    /// (scripts/postgres.sh standby), exact for voters and live feeds while it lags, taken out of
    /// rotation and put back, stopped and restarted under load. Each test has a primary and a
    /// standby of its own (it pauses or stops them).
    @Suite(.timeLimit(.minutes(10)), .enabled(if: TestPostgresServer.suitesRun)) struct ServeReplicaTests {
        typealias Cluster = ServeFeedOutageTests.Cluster
        typealias Feed = ServeEndToEndTests.ServeFeedTests
        typealias ReadCache = ServeEndToEndTests.ServeReadCacheTests

        /// A primary with a streaming hot standby, both removed when released.
        final class Pair {
            let primary: Cluster
            let standbyFolder = "/tmp/tenbin-postgres-standby-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let standbyURL: String

            init() throws {
                primary = try Cluster()
                let made = try Shell.capture(["\(Tenbin.root)/scripts/postgres.sh", "standby", standbyFolder, primary.folder])
                try #require(made.status == 0, "could not make a standby: \(made.stderr)")
                standbyURL = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }

            /// Runs `scripts/postgres.sh COMMAND` on the standby (halt, resume).
            func standby(_ command: String) throws {
                let run = try Shell.capture(["\(Tenbin.root)/scripts/postgres.sh", command, standbyFolder])
                try #require(run.status == 0, "postgres.sh \(command) on the standby: \(run.stderr)")
            }

            /// Runs `sql` on the standby; its output.
            @discardableResult
            func onStandby(_ sql: String) throws -> String {
                let run = try Shell.capture(["psql", "-X", "-At", standbyURL, "-c", sql])
                try #require(run.status == 0, "psql on the standby: \(run.stderr)")
                return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }

            /// Waits until the standby has replayed everything the primary has written now.
            func waitForReplay() throws {
                let primary = try Shell.capture(["psql", "-X", "-At", self.primary.url, "-c", "SELECT pg_current_wal_lsn()"])
                let position = primary.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(
                    try ServeReplicaTests.eventually {
                        try onStandby("SELECT pg_last_wal_replay_lsn() >= '\(position)'::pg_lsn") == "t"
                    }, "the standby never replayed to \(position)")
            }

            deinit { _ = try? Shell.capture(["\(Tenbin.root)/scripts/postgres.sh", "stop", standbyFolder]) }
        }

        /// A server on a fresh board on `pair`'s primary reading from its standby, with one poster.
        static func server(on pair: Pair, _ arguments: [String] = [], folder: ScratchFolder) throws -> ServeProcess {
            #expect(try Tenbin.run(["migrate", "--database", pair.primary.url]).status == 0)
            let server = try ServeProcess(
                ["--database", pair.primary.url, "--replica", pair.standbyURL, "--no-rate-limit"] + arguments, store: folder.path)
            try ServeEndToEndTests.ServeAPITests.post(server, contents: "cats or dogs")
            return server
        }

        /// The value of `name` (with any labels) in `GET /metrics`.
        static func metric(_ server: ServeProcess, _ name: String) throws -> Double? {
            let text = try server.request("GET", "/metrics").text
            let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") || $0.hasPrefix(name + "{") }
            return line.flatMap { Double($0.split(separator: " ").last ?? "") }
        }

        /// Whether `condition` holds within 30 s (a standby under a loaded machine's replay).
        /// Poster 1's first-side votes on the first popular page the standby answers (its read
        /// count past `readsBefore`), nil when none does within the wait. Each page asked is one
        /// not read before: a page read since the last vote may be answered from the read cache,
        /// which reaches neither server.
        static func posterOneOnAPageTheStandbyAnswers(_ server: ServeProcess, readsBefore: Double) throws -> Int? {
            var limit = 20
            var shown: Int?
            let answered = try eventually {
                limit += 1
                shown = ReadCache.good1(try server.request("GET", "/api/v1/posters?sort=popular&limit=\(limit)"), id: 1)
                return try #require(try metric(server, "tenbin_postgres_replica_reads_total")) > readsBefore
            }
            return answered ? shown : nil
        }

        static func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
            try ReadCache.eventually(within: 30, condition)
        }

        /// good1 of poster 1 as `GET /api/v1/posters/1` answers.
        static func good1(_ server: ServeProcess) throws -> Int? {
            let reply = try server.request("GET", "/api/v1/posters/1")
            #expect(reply.status == 200, "\(reply.text)")
            return (reply.json["poster"] as? [String: Any] ?? reply.json)["good1"] as? Int
        }

        @Test func pagesPostersAndSearchesAreReadFromTheStandby() throws {
            let pair = try Pair()
            let folder = try ScratchFolder()
            let server = try Self.server(on: pair, folder: folder)
            #expect(try Self.eventually { try Self.metric(server, "tenbin_postgres_replica_up") == 1 })
            try pair.waitForReplay()
            let before = try #require(try Self.metric(server, "tenbin_postgres_replica_reads_total"))
            // Distinct requests, so none is answered from the read cache.
            for (index, path) in ["/api/v1/posters?limit=7", "/api/v1/posters/1", "/api/v1/search?q=cats&limit=9"].enumerated() {
                let reply = try server.request("GET", path)
                #expect(reply.status == 200 && reply.text.contains("cats or dogs"), "\(index) \(path): \(reply.text)")
            }
            let after = try #require(try Self.metric(server, "tenbin_postgres_replica_reads_total"))
            #expect(after >= before + 3, "\(before) → \(after)")
            // The standby's own view: tenbin's connections are there.
            let sessions = try pair.onStandby(
                "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")
            #expect((Int(sessions) ?? 0) >= 1, "\(sessions)")
        }

        @Test func aVotersNextReadShowsTheVoteWhileTheStandbyHasNotReplayedIt() throws {
            let pair = try Pair()
            let folder = try ScratchFolder()
            // A lag allowed far longer than the test: the standby stays in rotation, paused.
            let server = try Self.server(on: pair, ["--replica-max-lag", "10m"], folder: folder)
            #expect(try Self.eventually { try Self.metric(server, "tenbin_postgres_replica_up") == 1 })
            try pair.waitForReplay()
            try pair.onStandby("SELECT pg_wal_replay_pause()")
            for times in 1...3 {
                let vote = try server.postJSON("/api/v1/posters/1/votes", #"{"side": 1}"#)
                #expect(vote.status == 200, "\(vote.text)")
                #expect(try Self.good1(server) == times)
                let page = try server.request("GET", "/api/v1/posters?sort=popular&limit=\(times + 10)")
                #expect(ReadCache.good1(page, id: 1) == times, "\(page.text)")
            }
            #expect(try Self.metric(server, "tenbin_postgres_replica_up") == 1)
            // Replayed again, the standby answers and shows the votes too.
            try pair.onStandby("SELECT pg_wal_replay_resume()")
            try pair.waitForReplay()
            let before = try #require(try Self.metric(server, "tenbin_postgres_replica_reads_total"))
            #expect(try Self.posterOneOnAPageTheStandbyAnswers(server, readsBefore: before) == 3)
        }

        @Test func aLiveFeedNeverShowsACountGoingBackwardsWhileTheStandbyLags() throws {
            let pair = try Pair()
            let folder = try ScratchFolder()
            let server = try Self.server(on: pair, ["--replica-max-lag", "10m", "--heartbeat", "120"], folder: folder)
            #expect(try Self.eventually { try Self.metric(server, "tenbin_postgres_replica_up") == 1 })
            try pair.waitForReplay()
            let feed = try Feed.open(server, "?sort=popular&limit=5")
            #expect(try Feed.nextEvent(feed).name == "snapshot")
            // Votes by another process: the server learns of them only from their announcements.
            var expected = 0
            for round in 0..<4 {
                let paused = round % 2 == 0
                try pair.onStandby(paused ? "SELECT pg_wal_replay_pause()" : "SELECT pg_wal_replay_resume()")
                #expect(try Tenbin.run(["vote", "1", "1", "--database", pair.primary.url], store: folder.path).status == 0)
                expected += 1
                // The feed reads after it heard of the vote, past where a paused standby stands: a
                // read from the standby would show it nothing new (no event, or the old count).
                // (Other reads may still reach the standby meanwhile, so its read count proves
                // nothing here.)
                let event = try Feed.nextEvent(feed)
                #expect(event.name == "modified", "\(event)")
                #expect(event.data.contains("\"good1\": \(expected),"), "round \(round): \(event)")
            }
        }

        @Test func aLaggingStandbyIsTakenOutOfRotationAndPutBackWhenItCatchesUp() throws {
            let pair = try Pair()
            let folder = try ScratchFolder()
            let server = try Self.server(on: pair, ["--replica-max-lag", "300ms"], folder: folder)
            #expect(try Self.eventually { try Self.metric(server, "tenbin_postgres_replica_up") == 1 })
            try pair.onStandby("SELECT pg_wal_replay_pause()")
            #expect(try Tenbin.run(["vote", "1", "1", "--times", "2", "--database", pair.primary.url], store: folder.path).status == 0)
            #expect(try Self.eventually { try Self.metric(server, "tenbin_postgres_replica_up") == 0 })
            #expect(try #require(try Self.metric(server, "tenbin_postgres_replica_lag_seconds")) > 0.3)
            #expect(try Self.metric(server, "tenbin_postgres_replica_removals_total") == 1)
            // Out of rotation, the primary answers.
            let primaryBefore = try #require(try Self.metric(server, "tenbin_postgres_primary_reads_total"))
            let readsBefore = try #require(try Self.metric(server, "tenbin_postgres_replica_reads_total"))
            #expect(try Self.good1(server) == 2)
            #expect(try #require(try Self.metric(server, "tenbin_postgres_primary_reads_total")) > primaryBefore)
            #expect(try Self.metric(server, "tenbin_postgres_replica_reads_total") == readsBefore)
            try pair.onStandby("SELECT pg_wal_replay_resume()")
            #expect(try Self.eventually { try Self.metric(server, "tenbin_postgres_replica_up") == 1 })
            // Back and replayed past the vote, the standby answers again.
            #expect(try Self.posterOneOnAPageTheStandbyAnswers(server, readsBefore: readsBefore) == 2)
        }

        @Test func stoppingAndRestartingTheStandbyUnderLoadGivesNoClientAnError() throws {
            let pair = try Pair()
            let folder = try ScratchFolder()
            let server = try Self.server(on: pair, ["--replica-max-lag", "1s"], folder: folder)
            #expect(try Self.eventually { try Self.metric(server, "tenbin_postgres_replica_up") == 1 })
            let stop = Locked(false)
            let failures = Locked([String]())
            let requests = Locked(0)
            let done = DispatchGroup()
            for client in 0..<3 {
                done.enter()
                Thread {
                    defer { done.leave() }
                    var round = 0
                    while !stop.withLock({ $0 }) {
                        round += 1
                        let paths = [
                            "/api/v1/posters?limit=\(round % 20 + 1)", "/api/v1/posters/1", "/api/v1/search?q=cats&limit=\(round % 20 + 1)",
                        ]
                        do {
                            let reply: HTTPReply =
                                client == 0 && round % 4 == 0
                                ? try server.postJSON("/api/v1/posters/1/votes", #"{"side": 2}"#)
                                : try server.request("GET", paths[round % paths.count])
                            requests.withLock { $0 += 1 }
                            if reply.status != 200 { failures.withLock { $0.append("\(reply.status) \(reply.text)") } }
                        } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                    }
                }.start()
            }
            #expect(Self.eventually { requests.withLock { $0 } > 50 })
            try pair.standby("halt")
            #expect(try Self.eventually { try Self.metric(server, "tenbin_postgres_replica_up") == 0 })
            let whileDown = requests.withLock { $0 }
            #expect(Self.eventually { requests.withLock { $0 } > whileDown + 50 })
            try pair.standby("resume")
            #expect(try Self.eventually { try Self.metric(server, "tenbin_postgres_replica_up") == 1 })
            let readsBack = try #require(try Self.metric(server, "tenbin_postgres_replica_reads_total"))
            #expect(try Self.eventually { try #require(try Self.metric(server, "tenbin_postgres_replica_reads_total")) > readsBack + 20 })
            stop.withLock { $0 = true }
            done.wait()
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")
            #expect(try #require(try Self.metric(server, "tenbin_postgres_replica_removals_total")) >= 1)
        }

        @Test func badReplicaValuesAreRefusedWithOneClearError() throws {
            let pair = try Pair()
            let folder = try ScratchFolder()
            #expect(try Tenbin.run(["migrate", "--database", pair.primary.url]).status == 0)
            let cases: [(arguments: [String], status: Int32, message: String)] = [
                (
                    ["--replica", "nosuchkey=1"], 64,
                    #"Error: '--replica': the database connection string is not valid: invalid connection option "nosuchkey""#
                ),
                (["--replica", " "], 64, "Error: '--replica' takes a PostgreSQL connection string or URI, not an empty one"),
                (["--replica", pair.primary.url], 64, "Error: '--replica' names the primary (--database) itself; give its hot standbys"),
                (["--replica", pair.standbyURL, "--replica", pair.standbyURL], 64, "Error: '--replica' names the same standby twice"),
                (
                    ["--replica", pair.primary.url + "?application_name=other"], 1,
                    "is not a hot standby: it is not in recovery (pg_is_in_recovery() is false)"
                ),
                (
                    ["--replica", pair.standbyURL, "--replica-max-lag", "5parsecs"], 64,
                    "Error: '--replica-max-lag' takes a duration from 10ms to 1h"
                ),
                (
                    ["--replica", pair.standbyURL, "--replica-max-lag", "0s"], 64,
                    "Error: '--replica-max-lag' takes a duration from 10ms to 1h"
                ),
            ]
            for (arguments, status, message) in cases {
                let run = try Tenbin.run(
                    ["serve", "--listen", "127.0.0.1:0", "--database", pair.primary.url] + arguments, store: folder.path)
                #expect(run.status == status, "\(arguments): \(run.stderr)")
                let lines = run.stderr.split(separator: "\n")
                #expect(lines.first?.hasPrefix("Error: ") == true && lines.first?.contains(message) == true, "\(arguments): \(run.stderr)")
                #expect(lines.filter { $0.hasPrefix("Error: ") }.count == 1, "\(run.stderr)")
                #expect(run.stdout.isEmpty, "\(arguments): \(run.stdout)")
            }
            // A standby, but of another cluster: its reads would be of another board.
            let other = try Pair()
            let foreign = try Tenbin.run(
                ["serve", "--listen", "127.0.0.1:0", "--database", pair.primary.url, "--replica", other.standbyURL], store: folder.path)
            #expect(foreign.status == 1, "\(foreign.stderr)")
            #expect(
                foreign.stderr.hasPrefix("Error: --replica ")
                    && foreign.stderr.contains("is a standby of another cluster, not of the database's"),
                "\(foreign.stderr)")
            #expect(foreign.stderr.split(separator: "\n").count == 1, "\(foreign.stderr)")
            // Standbys are of a primary: without a database, the option is refused.
            let alone = try Tenbin.run(["serve", "--listen", "127.0.0.1:0", "--replica", pair.standbyURL], store: folder.path)
            #expect(alone.status == 64 && alone.stderr.hasPrefix("Error: --replica needs a PostgreSQL database"), "\(alone.stderr)")
        }
    }
}
