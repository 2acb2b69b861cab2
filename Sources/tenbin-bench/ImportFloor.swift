import Foundation
import TenbinKit
import TenbinSQLite

/// What a manifest import cannot go below on this machine, measured on the benchmark's own
/// manifest: the core's per-poster text work alone (hashtags and search records, one core, in
/// process), and the search index's segments built alone (tenbin's code, in process, a batch
/// at a time as an import commits). The two run on different threads of an import, so on two
/// cores the slower of them bounds the import's rate even with everything else free. Schema
/// 7's index, SQLite's FTS5 storing the same pieces as documents, is timed beside them.
///
/// A third part is the committing thread's whole SQL alone: the identity probes and every row
/// a poster is made of (poster, hashtags, search key, and the index's blocks) inserted by the
/// `sqlite3` shell into a copy of a real store, a batch per transaction as an import commits.
/// One SQLite writer must do all of it in order, so this is the committing thread's floor
/// (without the index's merges, about one a 160,000 posters).
enum ImportFloor {
    /// Posters a transaction as an import commits them (`ImportOptions.batchSize`).
    static let importBatch = 20_000

    /// The floor's posters: the whole manifest, as the import above (a million: per-poster costs
    /// grow with the store, so a floor measured on fewer lines would flatter), or the first
    /// `TENBIN_BENCH_FLOOR_LINES` for a quicker look.
    static func run(_ context: BenchContext, manifest: String, lines: Int, importRate: Double?) throws {
        let wanted = Int(ProcessInfo.processInfo.environment["TENBIN_BENCH_FLOOR_LINES"] ?? "") ?? lines
        let sample = min(lines, wanted)
        let texts = try readTexts(manifest, limit: sample)
        // The core's text work, as an import does it per poster.
        var records: [SearchRecord] = []
        records.reserveCapacity(texts.count)
        var coreSeconds = Samples()
        for _ in 0..<3 {
            records.removeAll(keepingCapacity: true)
            // CPU time of this thread, not wall time: other processes on the machine do not count.
            let start = ReencodeBenchmark.threadCPU()
            for (contents, hashtags, _) in texts {
                records.append(SearchRecord(contents: contents, hashtags: Hashtags.normalize(hashtags)))
            }
            coreSeconds.add(ReencodeBenchmark.threadCPU() - start)
        }
        let tokens = records.reduce(0) { $0 + $1.pieces.count }
        // The index's segments, a batch at a time, as the committing thread builds them.
        var segments: [[(firstPiece: Int64, block: [UInt8])]] = []
        var indexSeconds = Samples()
        for _ in 0..<3 {
            segments.removeAll()
            let start = ReencodeBenchmark.threadCPU()
            for first in stride(from: 0, to: records.count, by: importBatch) {
                let batch = Array(records[first..<min(records.count, first + importBatch)])
                segments.append(SQLiteStore.searchIndexBlocks(ids: (0..<batch.count).map { Int64(first + $0 + 1) }, records: batch))
            }
            indexSeconds.add(ReencodeBenchmark.threadCPU() - start)
        }
        let folder = try context.freshFolder("import-floor")
        var table = Table(
            "\(texts.count) posters of the manifest, each part alone", "CPU time", "posters/s", "µs per piece",
            "pieces per poster")
        func add(_ label: String, _ seconds: Double, pieces: Bool = true) {
            table.add(
                label, Format.ms(seconds), Format.number(Double(texts.count) / seconds, digits: 0),
                Format.number(seconds * 1e6 / Double(tokens), digits: 3),
                pieces ? Format.number(Double(tokens) / Double(texts.count)) : "")
        }
        add("hashtags + search key + index pieces (core, one thread)", coreSeconds.median)
        add("the index's segments built, \(importBatch) posters each (tenbin, one thread)", indexSeconds.median)
        let fts = try ftsAlone(records, batch: importBatch, folder: folder)
        add("for comparison: schema 7's FTS5 index storing the same pieces (sqlite3, \(importBatch) per commit)", fts)
        let (written, read) = try writerAlone(
            texts, records: records, segments: segments, manifest: manifest, context: context, folder: folder)
        add(
            "the committing thread's SQL: identity probes, poster, hashtag, search key and index block rows "
                + "(sqlite3, \(importBatch) posters per commit, selected from a staging file)", written)
        add("reading the staged rows alone (the same selects, nothing written)", read, pieces: false)
        let writer = max(written - read, 1e-3)
        add("the committing thread's SQL alone (the first less the second)", writer, pieces: false)
        table.print()
        let ceiling = min(Double(texts.count) / coreSeconds.median, Double(texts.count) / indexSeconds.median)
        let floor = Double(texts.count) / writer
        print(
            "\nOn two cores the core's text work and the index's segments run side by side (reading thread, committing "
                + "thread): whatever else an import does, it cannot pass \(Format.number(ceiling, digits: 0)) posters/s here, the "
                + "slower of them. The committing thread also writes the rows, in one SQLite writer: its SQL alone, with reading "
                + "the staged rows taken off, allows \(Format.number(floor, digits: 0)) posters/s on \(texts.count) posters "
                + "(aim ≥ 20,000). Median of 3 (core, segments), one run each (sqlite3).")
        if let importRate, sample == lines {
            print(
                "The first import above reached \(Format.number(importRate, digits: 0)) posters/s: "
                    + "\(Format.number(100 * importRate / floor, digits: 0)) % of its committing thread's floor, in the same run.")
        }
    }

    /// CPU seconds of the `sqlite3` shell doing the committing thread's SQL for `texts`, in
    /// batches of ``importBatch``: a store made by tenbin (its schema, pragmas and the
    /// manifest's 300 images stored) receives, per batch, the identity probe of every poster
    /// and then its rows, selected from a file the texts were loaded into untimed. The WAL is
    /// not copied back during the run (an import leaves that to another thread). Also the CPU
    /// seconds of the same selects writing nothing: an import has its rows in memory, so what
    /// reading them from the staging file costs is no part of the floor.
    private static func writerAlone(
        _ texts: [(contents: String, hashtags: [String], images: (Int, Int))], records: [SearchRecord],
        segments: [[(firstPiece: Int64, block: [UInt8])]], manifest: String, context: BenchContext, folder: String
    ) throws -> (writing: Double, reading: Double) {
        let store = "\(folder)/writer-store"
        let pairs = URL(fileURLWithPath: manifest).deletingLastPathComponent().appendingPathComponent("pairs.jsonl").path
        let setup = try Shell.measure([context.tenbin, "--store", store, "import", pairs])
        guard setup.status == 0 else { throw BenchError("storing the manifest's images exited \(setup.status)") }
        // Every field quoted, quotes doubled: keys hold line feeds (contents, then hashtags).
        func field(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        var posters = ""
        var tags = ""
        for (index, ((contents, hashtags, images), record)) in zip(texts, records).enumerated() {
            let hash = Int64(bitPattern: FNV1a.hash(contents))
            // The pairs import stored the images as blobs 1…300; any mapping keeps the spread.
            posters += "\(index + 1),\(field(contents)),\(hash),\(images.0 % 300 + 1),\(images.1 % 300 + 1),"
            posters += "\(field(record.key))\n"
            for (position, tag) in Hashtags.normalize(hashtags).enumerated() { tags += "\(index + 1),\(position),\(field(tag))\n" }
        }
        // The index's blocks as SQL with blob literals (no other way into `sqlite3`), loaded untimed.
        var blocks = "BEGIN;\nCREATE TABLE block (batch INTEGER, piece INTEGER, postings BLOB);\n"
        for (batch, segment) in segments.enumerated() {
            for (piece, block) in segment {
                blocks += "INSERT INTO block VALUES (\(batch), \(piece), X'\(Hex.string(block))');\n"
            }
        }
        blocks += "CREATE INDEX block_batch ON block (batch, piece);\nCOMMIT;\n"
        let documents = "\(folder)/writer-documents.sqlite"
        try Data(posters.utf8).write(to: URL(fileURLWithPath: "\(folder)/writer-posters.csv"))
        try Data(tags.utf8).write(to: URL(fileURLWithPath: "\(folder)/writer-tags.csv"))
        try Data(blocks.utf8).write(to: URL(fileURLWithPath: "\(folder)/writer-blocks.sql"))
        let load = try Shell.shell(
            "sqlite3 '\(documents)' 'CREATE TABLE document (id INTEGER PRIMARY KEY, contents TEXT, hash INTEGER, image1 INTEGER, "
                + "image2 INTEGER, key TEXT)' 'CREATE TABLE tag (poster INTEGER, position INTEGER, tag TEXT)' "
                + "'.import --csv \(folder)/writer-posters.csv document' '.import --csv \(folder)/writer-tags.csv tag' "
                + "'CREATE INDEX tag_poster ON tag (poster)' '.read \(folder)/writer-blocks.sql'")
        guard load.status == 0 else { throw BenchError("sqlite3 loading the writer's rows exited \(load.status)") }
        // Poster ids continue after the pairs' posters, as an import's would.
        let first = 150
        var script = """
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = NORMAL;
            PRAGMA foreign_keys = ON;
            PRAGMA cache_size = -65536;
            PRAGMA wal_autocheckpoint = 0;
            ATTACH '\(documents)' AS d;

            """
        // The same selects, nothing written: what reading the staged rows costs (an import has
        // them in memory), to be taken off the writer's time.
        var reading = "ATTACH '\(documents)' AS d;\n"
        for start in stride(from: 0, to: texts.count, by: importBatch) {
            let range = "> \(start) AND %@ <= \(start + importBatch)"
            let documents = "WHERE n.id " + range.replacingOccurrences(of: "%@", with: "n.id")
            reading += """
                SELECT sum(n.image1 + n.image2 + (n.hash & 1)) FROM d.document AS n \(documents);
                SELECT sum(length(n.contents) + (n.hash & 1) + n.image1 + n.image2) FROM d.document AS n \(documents);
                SELECT sum(length(t.tag) + t.position) FROM d.tag AS t WHERE t.poster \(range.replacingOccurrences(of: "%@", with: "t.poster"));
                SELECT sum(length(n.key)) FROM d.document AS n \(documents);
                SELECT sum(length(b.postings) + b.piece) FROM d.block AS b WHERE b.batch = \(start / importBatch);

                """
            script += """
                BEGIN;
                SELECT count(*) FROM d.document AS n \(documents) AND EXISTS (SELECT 1 FROM poster AS p WHERE p.image1 = n.image1
                    AND p.image2 = n.image2 AND p.contents_hash = n.hash AND p.contents = n.contents);
                INSERT INTO poster (id, contents, contents_hash, created_at, image1, image2)
                    SELECT n.id + \(first), n.contents, n.hash, 1700000000, n.image1, n.image2 FROM d.document AS n \(documents) ORDER BY n.id;
                INSERT INTO hashtag (poster_id, position, tag) SELECT t.poster + \(first), t.position, t.tag FROM d.tag AS t
                    WHERE t.poster \(range.replacingOccurrences(of: "%@", with: "t.poster"));
                INSERT INTO search_key (poster_id, key) SELECT n.id + \(first), n.key FROM d.document AS n \(documents) ORDER BY n.id;
                INSERT INTO search_segment (level, posters, top) VALUES (4, \(importBatch), \(first + min(start + importBatch, texts.count)));
                INSERT INTO search_posting (segment, piece, postings)
                    SELECT last_insert_rowid(), b.piece, b.postings FROM d.block AS b WHERE b.batch = \(start / importBatch) ORDER BY b.piece;
                COMMIT;

                """
        }
        let scriptFile = "\(folder)/writer.sql"
        try Data(script.utf8).write(to: URL(fileURLWithPath: scriptFile))
        let run = try Shell.shell("sqlite3 '\(store)/tenbin.sqlite' < '\(scriptFile)' > /dev/null")
        guard run.status == 0 else { throw BenchError("sqlite3 doing the committing thread's SQL exited \(run.status)") }
        let readingFile = "\(folder)/reading.sql"
        try Data(reading.utf8).write(to: URL(fileURLWithPath: readingFile))
        let read = try Shell.shell("sqlite3 ':memory:' < '\(readingFile)' > /dev/null")
        guard read.status == 0 else { throw BenchError("sqlite3 reading the writer's rows exited \(read.status)") }
        return (run.cpuSeconds, read.cpuSeconds)
    }

    /// Each line's contents, hashtags and image numbers (`images/N.jpg`; the benchmark's
    /// manifest holds nothing else).
    private static func readTexts(_ manifest: String, limit: Int) throws -> [(contents: String, hashtags: [String], images: (Int, Int))] {
        let data = try Data(contentsOf: URL(fileURLWithPath: manifest))
        var texts: [(contents: String, hashtags: [String], images: (Int, Int))] = []
        func number(_ value: Any?) -> Int {
            Int((value as? String ?? "").split(whereSeparator: { !$0.isNumber }).first ?? "") ?? 0
        }
        for line in data.split(separator: UInt8(ascii: "\n")).prefix(limit) {
            guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { continue }
            texts.append(
                (
                    object["contents"] as? String ?? "", object["hashtags"] as? [String] ?? [],
                    (number(object["image1"]), number(object["image2"]))
                ))
        }
        return texts
    }

    /// Seconds (CPU of the sqlite3 process) to insert every record's pieces, as a document of
    /// tokens, into a fresh contentless FTS5 table defined as schema 7's, `batch` per transaction. The documents are
    /// first loaded, untimed, into a plain table of another file (an insert must give the
    /// rowid, the poster id, which `.import` cannot); the timed run selects them from there.
    private static func ftsAlone(_ records: [SearchRecord], batch: Int, folder: String) throws -> Double {
        let documents = "\(folder)/documents.sqlite"
        if !FileManager.default.fileExists(atPath: documents) {
            // Documents hold only [0-9a-z ], so each is one CSV field as it is.
            let csv = "\(folder)/documents.csv"
            try Data((records.map(\.document).joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: csv))
            let load = try Shell.shell("sqlite3 '\(documents)' 'CREATE TABLE document (grams TEXT)' '.import \(csv) document'")
            guard load.status == 0 else { throw BenchError("sqlite3 loading the index documents exited \(load.status)") }
        }
        let database = "\(folder)/fts-\(batch).sqlite"
        try? FileManager.default.removeItem(atPath: database)
        var script = """
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = NORMAL;
            CREATE VIRTUAL TABLE search_gram USING fts5(grams, tokenize = 'ascii', detail = 'none', content = '', columnsize = 0);
            INSERT INTO search_gram (search_gram, rank) VALUES ('hashsize', 16777216);
            INSERT INTO search_gram (search_gram, rank) VALUES ('automerge', 16);
            ATTACH '\(documents)' AS d;

            """
        for start in stride(from: 0, to: records.count, by: batch) {
            script += "BEGIN;\nINSERT INTO search_gram (rowid, grams) SELECT rowid, grams FROM d.document "
            script += "WHERE rowid > \(start) AND rowid <= \(start + batch);\nCOMMIT;\n"
        }
        let scriptFile = "\(folder)/fts-\(batch).sql"
        try Data(script.utf8).write(to: URL(fileURLWithPath: scriptFile))
        let run = try Shell.shell("sqlite3 '\(database)' < '\(scriptFile)'")
        guard run.status == 0 else { throw BenchError("sqlite3 importing the index documents exited \(run.status)") }
        return run.cpuSeconds
    }
}
