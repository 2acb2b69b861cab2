import Foundation
import TenbinKit

/// What a manifest import cannot go below on this machine, measured on the benchmark's own
/// manifest: the core's per-poster text work alone (hashtags and search records, one core, in
/// process), and SQLite's FTS5 storing the index documents alone (the `sqlite3` shell
/// importing them into a table defined as tenbin's, committing in batches as an import does).
/// The two run on different threads of an import, so on two cores the slower of them bounds
/// the import's rate even with everything else (JSON, rows, identity probes) free.
enum ImportFloor {
    static func run(_ context: BenchContext, manifest: String, lines: Int) throws {
        let sample = min(lines, 200_000)
        let texts = try readTexts(manifest, limit: sample)
        // The core's text work, as an import does it per poster.
        var records: [SearchRecord] = []
        records.reserveCapacity(texts.count)
        var coreSeconds = Samples()
        for _ in 0..<3 {
            records.removeAll(keepingCapacity: true)
            // CPU time of this thread, not wall time: other processes on the machine do not count.
            let start = ReencodeBenchmark.threadCPU()
            for (contents, hashtags) in texts {
                records.append(SearchRecord(contents: contents, hashtags: Hashtags.normalize(hashtags)))
            }
            coreSeconds.add(ReencodeBenchmark.threadCPU() - start)
        }
        let tokens = records.reduce(0) { $0 + $1.document.utf8.reduce(1) { $1 == 0x20 ? $0 + 1 : $0 } }
        let folder = try context.freshFolder("import-floor")
        var table = Table(
            "\(texts.count) posters of the manifest, each part alone", "CPU time", "posters/s", "µs per token",
            "tokens per poster")
        table.add(
            "hashtags + search key + index document (core, one thread)", Format.ms(coreSeconds.median),
            Format.number(Double(texts.count) / coreSeconds.median, digits: 0),
            Format.number(coreSeconds.median * 1e6 / Double(tokens), digits: 3),
            Format.number(Double(tokens) / Double(texts.count)))
        var best = 0.0
        for batch in [5_000, 50_000] {
            let seconds = try ftsAlone(records, batch: batch, folder: folder)
            best = max(best, Double(texts.count) / seconds)
            table.add(
                "FTS5 insert alone (sqlite3, \(batch) posters per commit)", Format.ms(seconds),
                Format.number(Double(texts.count) / seconds, digits: 0), Format.number(seconds * 1e6 / Double(tokens), digits: 3),
                Format.number(Double(tokens) / Double(texts.count)))
        }
        table.print()
        let ceiling = min(Double(texts.count) / coreSeconds.median, best)
        print(
            "\nOn two cores these two parts run side by side (reading thread, committing thread): whatever else an import does, "
                + "it cannot pass \(Format.number(ceiling, digits: 0)) posters/s here, the slower of them. Median of 3 (core), one run each (FTS5)."
        )
    }

    /// Each line's contents and hashtags (the benchmark's manifest holds nothing else of text).
    private static func readTexts(_ manifest: String, limit: Int) throws -> [(String, [String])] {
        let data = try Data(contentsOf: URL(fileURLWithPath: manifest))
        var texts: [(String, [String])] = []
        for line in data.split(separator: UInt8(ascii: "\n")).prefix(limit) {
            guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { continue }
            texts.append((object["contents"] as? String ?? "", object["hashtags"] as? [String] ?? []))
        }
        return texts
    }

    /// Seconds (CPU of the sqlite3 process) to insert every record's document into a fresh
    /// contentless FTS5 table defined as tenbin's (schema 6, `SQLiteSession.searchGramSchema`), `batch` per transaction. The documents are
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
