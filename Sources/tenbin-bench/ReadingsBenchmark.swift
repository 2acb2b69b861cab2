import Foundation
import TenbinKit

/// What search by reading costs an import's core work and the index: the manifest
/// benchmark's text (ManifestText), each poster's search record made with readings (MeCab, as
/// every import now does) against the record of the text as written (as before readings, and
/// as a machine without MeCab does), on one thread, in CPU time; and the pieces and key bytes
/// a poster then holds (what the index and `search_key` grow by). Then the whole import as a
/// user times it: `tenbin import` of the same many manifest lines over stored images into a
/// new store, with readings and without (`TENBIN_LIBMECAB=/nonexistent` turns them off for
/// the process), alternated.
enum ReadingsBenchmark {
    static func run(_ context: BenchContext) throws {
        let count = Int(ProcessInfo.processInfo.environment["TENBIN_BENCH_READINGS_LINES"] ?? "") ?? 200_000
        if let off = SearchReadings.unavailable { print("Readings are off here (\(off)): both rows measure text as written.\n") }
        var random = Random(seed: 7)
        let texts = (0..<count).map { _ in (ManifestText.contents(&random), Hashtags.normalize(ManifestText.hashtags(&random))) }
        var table = Table("record", "posters/s (one core, CPU)", "pieces a poster", "key bytes a poster", "posters with reading lines")
        var written: (pieces: Int, bytes: Int) = (0, 0)
        for withReadings in [false, true] {
            var seconds = Samples()
            var pieces = 0
            var bytes = 0
            var readingPosters = 0
            for _ in 0..<3 {
                (pieces, bytes, readingPosters) = (0, 0, 0)
                let start = ReencodeBenchmark.threadCPU()
                for (contents, hashtags) in texts {
                    let key =
                        withReadings
                        ? SearchText.key(contents: contents, hashtags: hashtags)
                        : SearchText.writtenKey(contents: contents, hashtags: hashtags)
                    pieces += SearchGrams.pieces(forKey: key).count
                    bytes += key.utf8.count
                    if key.split(separator: "\n", omittingEmptySubsequences: false).count > 1 + hashtags.count { readingPosters += 1 }
                }
                seconds.add(ReencodeBenchmark.threadCPU() - start)
            }
            if !withReadings { written = (pieces, bytes) }
            table.add(
                withReadings ? "with readings" : "as written",
                String(format: "%.0f", Double(count) / seconds.median),
                String(format: "%.1f (%+.0f %%)", Double(pieces) / Double(count), (Double(pieces) / Double(written.pieces) - 1) * 100),
                String(format: "%.0f (%+.0f %%)", Double(bytes) / Double(count), (Double(bytes) / Double(written.bytes) - 1) * 100),
                String(format: "%.0f %%", Double(readingPosters) / Double(count) * 100))
        }
        print("\(count) manifest posters' search records, median of 3 runs:\n")
        table.print()
        print()
        try wholeImport(context, lines: count)
    }

    /// `tenbin import` of `lines` manifest lines into a new store, with and without readings,
    /// three runs each, alternated; wall time, CPU and peak memory (medians).
    static func wholeImport(_ context: BenchContext, lines: Int) throws {
        let files = try ImportBenchmark.manifestFiles(context, lines: lines)
        var runs: [[Shell.Measurement]] = [[], []]
        for round in 0..<6 {
            let without = round % 2 == 1
            let store = try context.freshFolder("readings-import")
            let setup = try Shell.measure([context.tenbin, "--store", store, "import", files.pairs])
            guard setup.status == 0 else { throw BenchError("storing the manifest's images exited \(setup.status)") }
            let run = try Shell.measure(
                [context.tenbin, "--store", store, "import", files.manifest],
                environment: without
                    ? ProcessInfo.processInfo.environment.merging(["TENBIN_LIBMECAB": "/nonexistent/libmecab.so.2"]) { $1 } : nil)
            guard run.status == 0 else { throw BenchError("tenbin import \(files.manifest) exited \(run.status)") }
            runs[without ? 1 : 0].append(run)
        }
        var table = Table("tenbin import, \(lines.formatted()) manifest lines", "time", "posters/s", "CPU", "peak RSS", "ratio (time)")
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        let reference = median(runs[1].map(\.seconds))
        for (index, label) in ["with readings", "without (TENBIN_LIBMECAB=/nonexistent)"].enumerated() {
            let seconds = median(runs[index].map(\.seconds))
            table.add(
                label, String(format: "%.2f s", seconds), String(format: "%.0f", Double(lines) / seconds),
                String(format: "%.2f s", median(runs[index].map(\.cpuSeconds))), Format.mb(runs[index].map(\.peakRSS).sorted()[1]),
                Format.ratio(seconds / reference))
        }
        table.print()
        print("\nMedians of 3 runs each, alternated, each into a new store. Aim: ≥ 20,000 posters/s with readings.")
    }
}
