import Foundation

/// What the vote log (docs/architecture.md, walks through popular order) costs a vote batch
/// on SQLite: the SQL of a batch as tenbin runs it (each poster's UPDATE and timeline bucket,
/// in a `BEGIN IMMEDIATE` transaction), with and without the log's statements (the counter,
/// and a log row per poster, appended: schema 18's log), on a store tenbin made, with the store's
/// `synchronous = NORMAL`, interleaved so the machine's drift hits both alike. The statements
/// run from one Python process whose sqlite3 module prepares each once, as tenbin does: the
/// `sqlite3` shell parses every statement again, which would measure its parser.
enum VoteLogBenchmark {
    static func run(_ context: BenchContext) throws {
        let store = try context.freshFolder("votelog-store")
        let photos = try context.photos(count: 2, width: 320, height: 240)
        try Shell.run(context.tenbin, "--store", store, "post", photos[0], photos[1])
        let database = "\(store)/tenbin.sqlite"
        // 1,000 posters: copies of the first, as far as votes care.
        try Shell.run(
            "sqlite3", database,
            """
            INSERT INTO poster (contents, good1, good2, created_at, image1, image2, contents_hash)
            SELECT contents || x, 0, 0, created_at, image1, image2, contents_hash + x FROM poster,
            (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 999) SELECT x FROM c) WHERE id = 1
            """)
        let result = "\(store)/result.txt"
        let script = "\(store)/votes.py"
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        try Shell.run("python3", script, database, result)
        let text = try String(contentsOfFile: result, encoding: .utf8)
        let numbers = text.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard numbers.count == 4 else { throw BenchError("the vote script wrote '\(text)'") }
        let (batches, perBatch, without, with) = (numbers[0], Int(numbers[1]), numbers[2], numbers[3])
        var table = Table("\(Int(batches)) vote batches of \(perBatch) posters, SQLite", "median", "batches/s", "ratio (median)")
        table.add("counts and timeline buckets (no log)", Format.ms(without), Format.number(batches / without, digits: 0), Format.ratio(1))
        table.add("… and the vote log", Format.ms(with), Format.number(batches / with, digits: 0), Format.ratio(with / without))
        table.print()
        print(
            """

            5 runs each, interleaved, in one process with its statements prepared once (Python's
            sqlite3, as tenbin keeps its own); the log is never pruned here (no time passes).

            """)
    }

    /// The timed batches: `votes.py DATABASE RESULT` writes "batches perBatch without with"
    /// (medians in seconds).
    static let script = """
        import random, sqlite3, sys, time
        db = sqlite3.connect(sys.argv[1], isolation_level=None, cached_statements=64)
        db.execute("PRAGMA synchronous = NORMAL")
        rng = random.Random(30)
        batches, per = 4000, 8
        plan = [sorted(set(rng.randint(1, 1000) for _ in range(per))) for _ in range(batches)]
        def run(logged):
            started = time.perf_counter()
            for number, ids in enumerate(plan):
                minute = 1764450000 + number // 100 * 60
                db.execute("BEGIN IMMEDIATE")
                before = []
                for i in ids:
                    total = db.execute("UPDATE poster SET good1 = good1 + ?, good2 = good2 + ? WHERE id = ? RETURNING good1 + good2", (1, 0, i)).fetchone()[0]
                    db.execute("INSERT INTO vote_bucket (poster_id, start, good1, good2) VALUES (?, ?, ?, ?) ON CONFLICT (poster_id, start) DO UPDATE SET good1 = good1 + excluded.good1, good2 = good2 + excluded.good2", (i, minute, 1, 0))
                    before.append((i, total - 1))
                if logged:
                    batch = db.execute("UPDATE vote_batch SET last = last + 1 RETURNING last").fetchone()[0]
                    for i, votes in before:
                        db.execute("INSERT INTO vote_log (poster_id, batch, votes_before, trend_before) VALUES (?, ?, ?, 0)", (i, batch, votes))
                db.execute("COMMIT")
            return time.perf_counter() - started
        without, with_log = [], []
        for _ in range(5):
            without.append(run(False))
            with_log.append(run(True))
        median = lambda values: sorted(values)[len(values) // 2]
        open(sys.argv[2], "w").write(f"{batches} {per} {median(without)} {median(with_log)}\\n")
        """
}
