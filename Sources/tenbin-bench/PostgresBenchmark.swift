import Foundation
import TenbinKit
import TenbinPostgres

/// `postgres`: group-committed votes through Board on PostgreSQL against pgbench doing one
/// `UPDATE … SET good1 = good1 + 1` per commit on the same server, in the same run; then page
/// and search latency on the same database. Needs the server `make bench` starts
/// (scripts/postgres.sh run sets TENBIN_TEST_DATABASE_URL).
enum PostgresBenchmark {
    static let clients = 32
    static let seconds = 5.0

    static func run(_ context: BenchContext) throws {
        guard let server = testServer() else { return }
        // `$TENBIN_BENCH_PG_PART=import`: the manifest import alone, against SQLite's.
        if ProcessInfo.processInfo.environment["TENBIN_BENCH_PG_PART"] == "import" {
            return try PostgresScaleBenchmark.importRate(context, server: server)
        }
        // `$TENBIN_BENCH_PG_PART=search`: the searches at 1M alone (on `$TENBIN_BENCH_PG_SCALE_URL`
        // when set, else on a new copy of the 1M board), against SQLite's.
        if PostgresScaleBenchmark.searchesOnly {
            return try PostgresScaleBenchmark.latency(context, server: server, loaded: PostgresScaleBenchmark.loadedDatabase)
        }
        if let loaded = PostgresScaleBenchmark.loadedDatabase {
            if let call = PostgresScaleBenchmark.profiled { return try PostgresScaleBenchmark.profile(context, url: loaded, call: call) }
            try PostgresScaleBenchmark.latency(context, server: server, loaded: loaded)
            return
        }
        let url = try freshDatabase(server)
        let store = try PostgresStore(url: url, poolSize: 8)
        let folder = try context.freshFolder("postgres-bench")
        let board = Board(Board.Configuration(), store: store, blobs: BlobStore(storeFolder: folder))
        defer { board.close() }
        let ids = try insertPosters(store, count: 1_000)
        var table = Table("workload (32 clients, 5 s)", "pgbench, 1 update/commit", "tenbin castVote", "ratio", "votes per commit")
        for (name, targets) in [("one hot poster", [ids[0]]), ("1,000 posters", ids)] {
            let reference = try pgbench(url: url, ids: targets)
            let before = try store.read { try $0.posters(ids: targets) }.reduce(0) { $0 + $1.totalVotes }
            let (rate, votes, commits) = try castVotes(board, ids: targets)
            let after = try store.read { try $0.posters(ids: targets) }.reduce(0) { $0 + $1.totalVotes }
            guard after - before == votes else { throw BenchError("votes counted \(after - before), answered \(votes)") }
            table.add(
                name, Format.number(reference, digits: 0) + " tx/s", Format.number(rate, digits: 0) + " votes/s",
                Format.ratio(rate / reference), Format.number(Double(votes) / Double(max(1, commits))))
        }
        table.print()
        print("\nEvery vote answered was counted (checked against the database). Aim: ≥ 10× on one hot poster.")
        var latency = Table("read, 1,000 posters", "median")
        latency.add("page of 20, new", Format.ms(median { _ = try board.posters(order: .new, limit: 20) }))
        latency.add("page of 20, popular", Format.ms(median { _ = try board.posters(order: .popular, limit: 20) }))
        latency.add("search \"bench\" (every poster)", Format.ms(median { _ = try board.search(query: "bench") }))
        latency.add("search \"7\" (1 character)", Format.ms(median { _ = try board.search(query: "7") }))
        print("")
        latency.print()
        print("")
        try feedAcrossServers(context, url: url, folder: folder, board: board)
        try PostgresScaleBenchmark.run(context, server: server)
        print()
        try PostgresReplicaBenchmark.run(context)
    }

    /// A vote committed by this process (another server, as far as `tenbin serve` can tell:
    /// its own connections, its own NOTIFY) reaching a feed open on a `tenbin serve` of the
    /// same database, through LISTEN/NOTIFY.
    static func feedAcrossServers(_ context: BenchContext, url: String, folder: String, board: Board) throws {
        let port = try LoopbackHTTP.freePort()
        let server = try Child([context.tenbin, "--store", folder, "serve", "--database", url, "--listen", "127.0.0.1:\(port)"])
        defer { _ = server.interrupt() }
        try LoopbackHTTP.waitForListener(port: port, seconds: 30)
        let feeds = try (0..<100).map { _ in try FeedStream(port: port, path: "/api/v1/feed?sort=new&limit=20") }
        for feed in feeds { try feed.read(until: "snapshot", within: 30) }
        let latencies = try ServeBenchmark.voteToFeed(board: board, watched: feeds[0], votes: ServeBenchmark.latencyVotes)
        var table = Table("vote on one server → feed on another", "median", "p90", "p99", "max")
        table.add(
            "\(ServeBenchmark.latencyVotes) votes, \(feeds.count) feeds open", Format.ms(latencies.median),
            Format.ms(latencies.percentile(90)), Format.ms(latencies.percentile(99)), Format.ms(latencies.percentile(100)))
        table.print()
        print("\nFrom Board.vote returning in the bench process to the event on a feed of tenbin serve (LISTEN/NOTIFY).")
        print("Goal: p99 < 250 ms.\n")
    }

    /// The PostgreSQL server `make bench` starts (TENBIN_TEST_DATABASE_URL), or nil once the
    /// section is said to be skipped.
    static func testServer() -> String? {
        guard let server = ProcessInfo.processInfo.environment["TENBIN_TEST_DATABASE_URL"], !server.isEmpty else {
            print("!!! no PostgreSQL server (TENBIN_TEST_DATABASE_URL unset): section skipped; run it with make bench !!!")
            return nil
        }
        return server
    }

    static func freshDatabase(_ server: String, name: String = "tenbin_bench_\(getpid())") throws -> String {
        let admin = try Connection(ConnectionTarget(server))
        try admin.execute("DROP DATABASE IF EXISTS \(name)")
        try admin.execute("CREATE DATABASE \(name)")
        guard let slash = server.lastIndex(of: "/") else { throw BenchError("unexpected server URL") }
        return String(server[...slash]) + name
    }

    static func insertPosters(_ store: PostgresStore, count: Int) throws -> [Int64] {
        let images = [
            StoredImage(digest: Digest(of: Array("left".utf8)), format: .jpeg, width: 4, height: 3, bytes: 10),
            StoredImage(digest: Digest(of: Array("right".utf8)), format: .png, width: 3, height: 4, bytes: 12),
        ]
        return try store.write { writing in
            for image in images { try writing.insertBlob(image, source: nil, encodingKey: "bench") }
            return try (0..<count).map { index in
                let contents = "bench poster \(index)"
                return try writing.insertPoster(
                    NewPoster(contents: contents, hashtags: ["tag\(index % 10)"], images: images),
                    createdAt: Timestamp(secondsSince1970: 1),
                    search: SearchRecord(contents: contents, hashtags: ["tag\(index % 10)"]))
            }
        }
    }

    /// Debian's pgbench (PostgreSQL 15's, as the test server is).
    static let pgbenchPath = "/usr/lib/postgresql/15/bin/pgbench"

    /// pgbench's rate for one `UPDATE … + 1` per transaction, on the first of `ids` or a random one.
    static func pgbench(url: String, ids: [Int64]) throws -> Double {
        let script = NSTemporaryDirectory() + "tenbin-pgbench-\(getpid()).sql"
        let output = script + ".out"
        defer {
            try? FileManager.default.removeItem(atPath: script)
            try? FileManager.default.removeItem(atPath: output)
        }
        let sql =
            ids.count == 1
            ? "UPDATE poster SET good1 = good1 + 1 WHERE id = \(ids[0]);\n"
            : "\\set id random(\(ids.min()!), \(ids.max()!))\nUPDATE poster SET good1 = good1 + 1 WHERE id = :id;\n"
        try sql.write(toFile: script, atomically: true, encoding: .utf8)
        _ = try Shell.shell("\(pgbenchPath) -n -c \(clients) -j 2 -T \(Int(seconds)) -f \(script) '\(url)' > \(output) 2>&1")
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
            let value = Double(line.dropFirst(6).split(separator: " ").first ?? "")
        else { throw BenchError("pgbench printed no rate: \(text.prefix(300))") }
        return value
    }

    /// Votes per second with `clients` tasks each casting votes one after another for `seconds`.
    static func castVotes(_ board: Board, ids: [Int64]) throws -> (rate: Double, votes: Int, commits: Int) {
        let (startVotes, startCommits) = board.voteStatistics
        let answered = Counter()
        let deadline = Date().addingTimeInterval(seconds)
        let start = Date()
        let group = DispatchGroup()
        for client in 0..<clients {
            group.enter()
            Task {
                var index = client
                while Date() < deadline {
                    if (try? await board.castVote(id: ids[index % ids.count], side: .first)) != nil { answered.add() }
                    index += 7
                }
                group.leave()
            }
        }
        group.wait()
        let elapsed = Date().timeIntervalSince(start)
        let (_, commits) = board.voteStatistics
        _ = startVotes
        return (Double(answered.value) / elapsed, answered.value, commits - startCommits)
    }

    static func median(_ body: () throws -> Void) -> Double {
        var times: [Double] = []
        for _ in 0..<30 {
            let start = Date()
            try? body()
            times.append(Date().timeIntervalSince(start))
        }
        return times.sorted()[times.count / 2]
    }
}

/// A count many tasks add to.
final class Counter: Sendable {
    private let state = Locked(0)
    var value: Int { state.withLock { $0 } }
    func add() { state.withLock { $0 += 1 } }
}
