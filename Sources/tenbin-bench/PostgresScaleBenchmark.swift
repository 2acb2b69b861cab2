import Foundation
import TenbinKit
import TenbinPostgres
import TenbinSQLite

/// The `postgres` section's second half: page and search latency at 1M posters on PostgreSQL
/// (over TCP on loopback) against the SQLite backend in process, on the same generated board;
/// then a 100k-line manifest imported into each.
///
/// The board is the `search` section's 1M store (built once, cached), moved into PostgreSQL by
/// `tenbin copy`, which is also timed.
enum PostgresScaleBenchmark {
    /// `$TENBIN_BENCH_PG_POSTERS` overrides, for a quick run.
    static let posters = ProcessInfo.processInfo.environment["TENBIN_BENCH_PG_POSTERS"].flatMap { Int($0) } ?? 1_000_000
    /// `$TENBIN_BENCH_PG_MANIFEST` overrides.
    static let manifestLines = ProcessInfo.processInfo.environment["TENBIN_BENCH_PG_MANIFEST"].flatMap { Int($0) } ?? 100_000
    static let queriesPerKind = 100
    /// `$TENBIN_BENCH_PG_SCALE_URL`: a database already holding `tenbin copy` of the generated
    /// store of ``posters`` posters. When set, the section measures only the read latencies,
    /// on it (no votes, no copy, no import): for iterating on the reads.
    static let loadedDatabase = ProcessInfo.processInfo.environment["TENBIN_BENCH_PG_SCALE_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// `$TENBIN_BENCH_PG_PROFILE` (`page`, `popular` or `search`, with
    /// ``loadedDatabase``): that call alone in a loop on PostgreSQL, for a profiler, printing
    /// its wall and client CPU time per call.
    static let profiled = ProcessInfo.processInfo.environment["TENBIN_BENCH_PG_PROFILE"].flatMap { $0.isEmpty ? nil : $0 }

    /// `$TENBIN_BENCH_PG_PART=search`: only the search rows of ``latency(_:server:loaded:)`` (no
    /// pages, no floors), for iterating on search with ``loadedDatabase``.
    static let searchesOnly = ProcessInfo.processInfo.environment["TENBIN_BENCH_PG_PART"] == "search"

    /// `$TENBIN_BENCH_PG_ROUNDS` (default 1): how many timed passes each row makes on each
    /// backend, the backends alternated pass by pass, so a burst of load on the shared machine
    /// falls on both; the medians and p99s are over every pass, and each pass's own ratio is
    /// printed beside them.
    static let rounds = max(1, ProcessInfo.processInfo.environment["TENBIN_BENCH_PG_ROUNDS"].flatMap { Int($0) } ?? 1)

    static func run(_ context: BenchContext, server: String) throws {
        try latency(context, server: server)
        print()
        try importRate(context, server: server)
    }

    static func latency(_ context: BenchContext, server: String, loaded: String? = nil) throws {
        let (sqlitePath, built) = try SearchBenchmark.store(size: posters, context: context)
        let url = try loaded ?? PostgresBenchmark.freshDatabase(server, name: "tenbin_bench_scale")
        let blobs = try context.freshFolder("postgres-scale")
        // Through a shell only to keep what tenbin copy prints (its copy and verification times).
        let printed = "\(context.scratch)/postgres-scale-copy.txt"
        var copy = (seconds: 0.0, peakRSS: 0)
        if loaded == nil {
            let run = try Shell.shell(
                "exec '\(context.tenbin)' copy --from '\(sqlitePath)' --to '\(url)' --to-blobs '\(blobs)' > '\(printed)'")
            guard run.status == 0 else { throw BenchError("tenbin copy into PostgreSQL exited \(run.status)") }
            copy = (run.seconds, run.peakRSS)
        }
        let sqlite = try Board(folder: sqlitePath, create: false)
        defer { sqlite.close() }
        let store = try PostgresStore(url: url, poolSize: 2)
        let postgres = Board(Board.Configuration(), store: store, blobs: BlobStore(storeFolder: blobs))
        defer { postgres.close() }
        // The same database over the server's Unix socket, as a board on the database's own
        // machine would connect: the same rows, a cheaper round trip.
        let socketURL = localSocket(of: url)
        let overSocket = try socketURL.map {
            Board(Board.Configuration(), store: try PostgresStore(url: $0, poolSize: 2), blobs: BlobStore(storeFolder: blobs))
        }
        defer { overSocket?.close() }
        let boards = [sqlite, postgres] + (overSocket.map { [$0] } ?? [])
        var table = Table(
            ["\(posters.formatted()) posters", "SQLite in process: median", "p99", "PostgreSQL over TCP: median", "p99", "ratio"]
                + (rounds > 1 ? ["ratio by pass"] : [])
                + (overSocket == nil ? [] : ["over the Unix socket: median", "p99", "ratio"] + (rounds > 1 ? ["ratio by pass"] : []))
                + ["answers"])
        let halfway = FeedPosition(id: Int64(posters / 2))
        let pages: [(String, (Board) throws -> [Int64])] = [
            ("page of 20, new", { try $0.posters(order: .new, limit: 20).map(\.id) }),
            ("page of 20, popular", { try $0.posters(order: .popular, limit: 20).map(\.id) }),
            (
                "page of 20, new, after a cursor halfway",
                { board in
                    try board.store.readSingle { try $0.page(order: .new, after: halfway, offset: 0, limit: 20) }.map(\.id)
                }
            ),
        ]
        var rows: [(String, (Board, inout Samples) throws -> [Int64])] = (searchesOnly ? [] : pages).map { name, body in
            (name, { board, times in try (0..<200).flatMap { _ in try timed(&times) { try body(board) } } })
        }
        var random = Random(seed: 7)
        for kind in SearchBenchmark.QueryKind.allCases {
            let queries = (0..<queriesPerKind).map { _ in kind.query(&random) }
            rows.append(
                (
                    "search, words of \(kind.label)",
                    { board, times in try queries.flatMap { query in try timed(&times) { try board.search(query: query).map(\.id) } } }
                ))
        }
        // Popular order for the kinds a backend may answer whole (fewer queries: a common word
        // ranks by votes over the popular index).
        for kind in [SearchBenchmark.QueryKind.one, .two] {
            let queries = (0..<(queriesPerKind / 2)).map { _ in kind.query(&random) }
            rows.append(
                (
                    "search, popular, words of \(kind.label)",
                    { board, times in
                        try queries.flatMap { query in try timed(&times) { try board.search(query: query, order: .popular).map(\.id) } }
                    }
                ))
        }
        if let only = ProcessInfo.processInfo.environment["TENBIN_BENCH_PG_ROWS"], !only.isEmpty {
            // `$TENBIN_BENCH_PG_ROWS`: only the rows whose name contains it (`2 characters`).
            rows.removeAll { !$0.0.contains(only) }
        }
        for (name, run) in rows {
            var answers: [[Int64]] = []
            var samples = boards.map { _ in Samples() }
            // Each PostgreSQL connection's ratio to SQLite, pass by pass.
            var ratios = boards.dropFirst().map { _ in [String]() }
            func addRatios(_ pass: [Samples]) {
                for index in ratios.indices { ratios[index].append(Format.ratio(pass[index + 1].median / pass[0].median)) }
            }
            for (index, board) in boards.enumerated() {
                // One untimed pass warms the caches, as a running server's would be.
                var warm = Samples()
                _ = try run(board, &warm)
                answers.append(try run(board, &samples[index]))
            }
            addRatios(samples)
            for _ in 1..<rounds {
                var pass = boards.map { _ in Samples() }
                for (index, board) in boards.enumerated() {
                    guard try run(board, &pass[index]) == answers[index] else { throw BenchError("\(name): a pass answered differently") }
                    for value in pass[index].values { samples[index].add(value) }
                }
                addRatios(pass)
            }
            var cells = [name, Format.ms(samples[0].median), Format.ms(samples[0].percentile(99))]
            for index in ratios.indices {
                let times = samples[index + 1]
                cells += [Format.ms(times.median), Format.ms(times.percentile(99)), Format.ratio(times.median / samples[0].median)]
                if rounds > 1 { cells.append(ratios[index].joined(separator: " ")) }
            }
            table.add(cells + [answers.allSatisfy { $0 == answers[0] } ? "identical" : "DIFFERENT"])
        }
        let kept = store.keptSearches
        let paths =
            "PostgreSQL's searches newest first: \(kept.answered) in one statement from "
            + "the kept segment list and blocks, \(kept.walked) in one statement from the newest posters, \(kept.outdated) found "
            + "the kept list outdated; the others in a read."
        if searchesOnly {
            print(paths)
            print(
                "PostgreSQL: \(loaded == nil ? "a new copy of the board" : "the database already loaded ($TENBIN_BENCH_PG_SCALE_URL)").\n")
            table.print()
            print("\nSearches alone ($TENBIN_BENCH_PG_PART=search), \(rounds) timed pass(es) a row on each backend, alternated.")
            return
        }
        // The floors, over each connection: a cell pair for each, then the answers' blank.
        let ratioBlank = Array(repeating: "", count: rounds > 1 ? 2 : 1)
        func floorRow(_ name: String, _ measure: (String) throws -> Samples) rethrows -> [String] {
            var cells = [name, "", ""]
            for connection in [url] + (socketURL.map { [$0] } ?? []) {
                let times = try measure(connection)
                cells += [Format.ms(times.median), Format.ms(times.percentile(99))] + ratioBlank
            }
            return cells + [""]
        }
        table.add(try floorRow("one round trip: prepared SELECT 1 (libpq)", roundTrip))
        let statement = PostgresStore.firstPageStatement(order: .new, limit: 20)
        if let row = try? floorRow("page of 20, new: its statement run by pgbench", { try pgbenchLatency(url: $0, sql: statement) }) {
            table.add(row)
        }
        let board = "Board: the search section's generated store (\(built.map { String(format: "built in %.0f s", $0) } ?? "cached")); "
        if loaded == nil {
            print(
                board
                    + String(
                        format: "tenbin copy into PostgreSQL: %.0f s (%.0f posters/s, peak RSS %@).\n", copy.seconds,
                        Double(posters) / copy.seconds, Format.mb(copy.peakRSS)))
            print((try? String(contentsOfFile: printed, encoding: .utf8)) ?? "")
        } else {
            print(board + "PostgreSQL: the database already loaded ($TENBIN_BENCH_PG_SCALE_URL).\n")
        }
        table.print()
        print("\n" + paths)
        try waitingTable(url: url, blobs: blobs)
        print(
            """

            In-process Board calls on each backend, PostgreSQL through libpq over TCP to 127.0.0.1 (a
            pool of 2) and, beside it, over the server's Unix socket (the same database; what a board
            on the database's own machine gets). Pages: 200 timed calls each; searches: \(queriesPerKind) queries per kind (the search
            section's generator; half as many in popular order), 20 newest (or most voted) matches with
            hashtags, each timed once. "answers" compares every id returned by each. Aim: PostgreSQL
            within 2× of SQLite. The last rows are floors: one
            round trip through libpq to the same server, no table touched; and the newest page's
            statement run by pgbench (the server's work and a round trip, no decoding).
            """)
        if let note = MachineState.wakeUpNote() { print(note) }
    }

    /// `url` (`postgresql://USER@HOST:PORT/DB`) as a connection string for the Unix socket of
    /// the server `make bench` started (its folder in `$TENBIN_TEST_POSTGRES_DIR`), or nil when
    /// that folder has no socket for the URL's port.
    static func localSocket(of url: String) -> String? {
        guard let folder = ProcessInfo.processInfo.environment["TENBIN_TEST_POSTGRES_DIR"], !folder.isEmpty,
            let parts = URLComponents(string: url), let port = parts.port, let user = parts.user,
            FileManager.default.fileExists(atPath: "\(folder)/.s.PGSQL.\(port)")
        else { return nil }
        return "host=\(folder) port=\(port) user=\(user) dbname=\(parts.path.dropFirst())"
    }

    /// How a statement's thread waits for its answer (``AnswerWaiting``): read as
    /// it arrives, as tenbin does, against asleep in `poll()`, on the same database in the same
    /// run, alternated: a page's latency alone, then pages per second and the client's CPU a
    /// page with 1, 2 and 8 threads reading at once (spinning stops once two statements wait).
    static func waitingTable(url: String, blobs: String) throws {
        let store = try PostgresStore(url: url, poolSize: 8)
        let board = Board(Board.Configuration(), store: store, blobs: BlobStore(storeFolder: blobs))
        defer { board.close() }
        let spin = AnswerWaiting.process.limitNanoseconds.load(ordering: .relaxed)
        defer { AnswerWaiting.process.limitNanoseconds.store(spin, ordering: .relaxed) }
        let ways = [("read as it arrives (\(spin / 1_000) µs at most)", spin), ("asleep in poll()", 0)]
        var table = Table(["page of 20, new, offset 0–199", ways[0].0, "CPU a page", ways[1].0, "CPU a page", "ratio"])
        let page: @Sendable (Board, Int) throws -> Void = { board, round in
            _ = try board.posters(order: .new, limit: 20, offset: round % 200)
        }
        var latency = [Samples(), Samples()]
        for _ in 0..<4 {
            for (index, way) in ways.enumerated() {
                AnswerWaiting.process.limitNanoseconds.store(way.1, ordering: .relaxed)
                for round in 0..<500 { _ = try timed(&latency[index]) { try page(board, round) } }
            }
        }
        table.add(
            "one reader: median (p99)", "\(Format.ms(latency[0].median)) (\(Format.ms(latency[0].percentile(99))))", "",
            "\(Format.ms(latency[1].median)) (\(Format.ms(latency[1].percentile(99))))", "",
            Format.ratio(latency[0].median / latency[1].median))
        for readers in [1, 2, 8] {
            var rates = [0.0, 0.0]
            var cpu = [0.0, 0.0]
            var spun = 0.0
            for _ in 0..<2 {
                for (index, way) in ways.enumerated() {
                    AnswerWaiting.process.limitNanoseconds.store(way.1, ordering: .relaxed)
                    let spins = AnswerWaiting.process.spins.load(ordering: .relaxed)
                    let start = cpuSeconds()
                    let rate = try PostgresReplicaBenchmark.rate(board, readers: readers, page)
                    let end = cpuSeconds()
                    if index == 0 {
                        let pages = rate * PostgresReplicaBenchmark.seconds
                        spun += Double(AnswerWaiting.process.spins.load(ordering: .relaxed) - spins) / pages / 2
                    }
                    rates[index] += rate / 2
                    cpu[index] += (end.user + end.system - start.user - start.system) / (rate * PostgresReplicaBenchmark.seconds) / 2
                }
            }
            table.add(
                "\(readers) reader\(readers == 1 ? "" : "s"): pages/s", Format.number(rates[0], digits: 0) + "/s",
                String(format: "%.0f µs, %.0f %% spun", cpu[0] * 1e6, spun * 100), Format.number(rates[1], digits: 0) + "/s",
                String(format: "%.0f µs", cpu[1] * 1e6), Format.ratio(rates[0] / rates[1]))
        }
        print()
        table.print()
        print(
            """

            How a thread waits for PostgreSQL's answer, in one run on the same database over TCP (a pool
            of 8), the two ways alternated: "CPU a page" is this process's user and system time over the
            pages it read (the database server's is not counted).
            """)
    }

    /// ``profiled``'s loop: each call on PostgreSQL alone, then its wall and client CPU time.
    static func profile(_ context: BenchContext, url: String, call: String) throws {
        let blobs = try context.freshFolder("postgres-scale")
        let store = try PostgresStore(url: url, poolSize: 2)
        let board = Board(Board.Configuration(), store: store, blobs: BlobStore(storeFolder: blobs))
        defer { board.close() }
        var random = Random(seed: 7)
        // `$TENBIN_BENCH_PG_PROFILE_WORDS` (`1`, `2` or `3`): the length of the search's words.
        let kind: SearchBenchmark.QueryKind =
            switch ProcessInfo.processInfo.environment["TENBIN_BENCH_PG_PROFILE_WORDS"] {
            case "2": .two
            case "3": .longer
            default: .one
            }
        let queries = (0..<100).map { _ in kind.query(&random) }
        var index = 0
        let body: () throws -> Void =
            switch call {
            case "popular": { _ = try board.posters(order: .popular, limit: 20) }
            case "search":
                {
                    index += 1
                    _ = try board.search(query: queries[index % queries.count])
                }
            default: { _ = try board.posters(order: .new, limit: 20) }
            }
        let calls = call == "search" ? 2_000 : 20_000
        var wall = Samples()
        for _ in 0..<200 { _ = try timed(&wall) { try body() } }
        wall = Samples()
        let start = cpuSeconds()
        for _ in 0..<calls { _ = try timed(&wall) { try body() } }
        let end = cpuSeconds()
        print(
            "\(call): \(calls) calls, wall median \(Format.microseconds(wall.median)), p90 \(Format.microseconds(wall.percentile(90))); "
                + "client CPU a call: user \(Format.microseconds((end.user - start.user) / Double(calls))), "
                + "system \(Format.microseconds((end.system - start.system) / Double(calls)))"
                + (call == "search" ? "; kept \(store.keptSearches)" : ""))
    }

    /// This process's CPU time so far, in user mode and in the kernel.
    private static func cpuSeconds() -> (user: Double, system: Double) {
        var usage = rusage()
        _ = getrusage(RUSAGE_SELF.rawValue, &usage)  // cannot fail for RUSAGE_SELF
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return (seconds(usage.ru_utime), seconds(usage.ru_stime))
    }

    /// The floor under every PostgreSQL row: one round trip through libpq to the same server,
    /// a prepared `SELECT 1`, 2,000 times after 200 untimed.
    private static func roundTrip(_ url: String) throws -> Samples {
        let connection = try Connection(ConnectionTarget(url))
        var warm = Samples()
        for _ in 0..<200 { _ = try timed(&warm) { try connection.queryPrepared("SELECT 1") } }
        var times = Samples()
        for _ in 0..<2_000 { _ = try timed(&times) { try connection.queryPrepared("SELECT 1") } }
        return times
    }

    /// Latencies of `sql` run by pgbench (one client, prepared, 2,000 times after 200): the
    /// server's work and the round trip, without tenbin's client (rows come in text and are
    /// not decoded).
    private static func pgbenchLatency(url: String, sql: String) throws -> Samples {
        let folder = NSTemporaryDirectory() + "tenbin-pgbench-latency-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // pgbench ends a command, which may span lines, at its semicolon.
        try (sql + ";\n").write(toFile: folder + "/page.sql", atomically: true, encoding: .utf8)
        let pgbench = "\(PostgresBenchmark.pgbenchPath) -n -M prepared -c 1 -f page.sql"
        _ = try Shell.shell("cd '\(folder)' && \(pgbench) -t 200 '\(url)' > /dev/null 2>&1")
        let run = try Shell.shell("cd '\(folder)' && \(pgbench) -t 2000 -l --log-prefix=latency '\(url)' > /dev/null 2>&1")
        guard run.status == 0 else { throw BenchError("pgbench exited \(run.status)") }
        // One line a transaction: client, transaction number, latency in microseconds, …
        var times = Samples()
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasPrefix("latency") {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") {
                let fields = line.split(separator: " ")
                if fields.count > 2, let microseconds = Double(fields[2]) { times.add(microseconds / 1e6) }
            }
        }
        guard !times.values.isEmpty else { throw BenchError("pgbench logged no latencies") }
        return times
    }

    /// Runs `body`, adding its time to `times`.
    private static func timed<T>(_ times: inout Samples, _ body: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        let value = try body()
        times.add(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        return value
    }

    static func importRate(_ context: BenchContext, server: String) throws {
        let files = try ImportBenchmark.manifestFiles(context, lines: manifestLines)
        var table = Table(
            "\(manifestLines.formatted())-line manifest over \(files.images) stored images", "time", "posters/s", "peak RSS", "vs SQLite")
        var reference = 0.0
        for backend in ["SQLite", "PostgreSQL"] {
            let folder = try context.freshFolder("postgres-import-\(backend.lowercased())")
            var database: [String] = []
            if backend == "PostgreSQL" {
                database = ["--database", try PostgresBenchmark.freshDatabase(server, name: "tenbin_bench_import")]
            }
            let setup = try Shell.measure([context.tenbin, "--store", folder, "import", files.pairs] + database)
            guard setup.status == 0 else { throw BenchError("storing the manifest's images (\(backend)) exited \(setup.status)") }
            let run = try Shell.measure([context.tenbin, "--store", folder, "import", files.manifest] + database)
            guard run.status == 0 else { throw BenchError("tenbin import (\(backend)) exited \(run.status)") }
            let rate = Double(manifestLines) / run.seconds
            if backend == "SQLite" { reference = rate }
            table.add(
                "tenbin import, \(backend)", Format.ms(run.seconds), Format.number(rate, digits: 0), Format.mb(run.peakRSS),
                Format.ratio(rate / reference))
        }
        table.print()
        print("\nOne run each (whole processes, the same manifest the import section generates). Ratio: posters/s against SQLite's.")
    }
}
