import Foundation
import TenbinKit

/// What search by reading costs an import's core work and the index: the manifest
/// benchmark's text (ManifestText), each poster's search record made with readings (MeCab, as
/// every import now does) against the record of the text as written (as before readings, and
/// as a machine without MeCab does), on one thread, in CPU time; and the pieces and key bytes
/// a poster then holds (what the index and `search_key` grow by). The import itself, with and
/// without readings, is the `import` section run twice (`TENBIN_MECAB_DICTIONARY=/nonexistent`
/// turns readings off for the whole process).
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
    }
}
