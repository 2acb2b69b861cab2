import Foundation

// `tenbin-bench [SECTION…]`: runs the named benchmark sections (all when none are named)
// and prints a table for each. Every speed is reported next to a reference measured in the
// same run, as a ratio: the machines are noisy, ratios less so.

/// One benchmark section: a name for the command line and the function that prints it.
struct Section {
    let name: String
    let summary: String
    let run: (BenchContext) throws -> Void
}

/// The sections, in the order `make bench` runs them. Each lives in its own file.
let sections: [Section] = [
    Section(name: "reencode", summary: "Re-encoding large photos against djpeg | cjpeg", run: ReencodeBenchmark.run),
    Section(name: "vote", summary: "One vote per process against one sqlite3 process", run: VoteBenchmark.run),
    Section(name: "votelog", summary: "A vote batch's SQL with and without the walks' vote log", run: VoteLogBenchmark.run),
    Section(name: "memory", summary: "Peak memory posting a 20-megapixel JPEG and a 49-megapixel PNG", run: MemoryBenchmark.run),
    Section(name: "pipeline", summary: "Image pipeline: cold, parallel and warm loads, coalescing, cache", run: PipelineBenchmark.run),
    Section(
        name: "blocklist", summary: "Blocked images: copies caught and distinct pictures matched per distance; hash cost per post",
        run: BlocklistBenchmark.run),
    Section(
        name: "moderation", summary: "Reports through the library and the server; votes/s with the vote limiter on and off; proof of work",
        run: ModerationBenchmark.run),
    Section(name: "import", summary: "Importing large photos and a million-line manifest", run: ImportBenchmark.run),
    Section(
        name: "whole", summary: "Whole commands as users time them: post, import and a one-character search against their references",
        run: WholeCommandBenchmark.run),
    Section(name: "live", summary: "Idle CPU of tenbin watch and vote-to-event latency", run: LiveBenchmark.run),
    Section(
        name: "readings", summary: "Search records with readings (MeCab) against text as written: rate, pieces, key size",
        run: ReadingsBenchmark.run),
    Section(name: "search", summary: "Search at 100k and 1M posters against a scan of every key", run: SearchBenchmark.run),
    Section(
        name: "trending", summary: "Trending pages at 1M posters beside popular's; a vote's CPU with the score against without",
        run: TrendingBenchmark.run),
    Section(name: "reads", summary: "64 concurrent readers of one Board against reads one at a time", run: ReadsBenchmark.run),
    Section(name: "serve", summary: "tenbin serve under wrk against nginx; votes, live feeds, memory", run: ServeBenchmark.run),
    Section(name: "pictures", summary: "Drawing a page of posters in each --image-mode against half blocks", run: PicturesBenchmark.run),
    Section(
        name: "pageload", summary: "The board's first screen and a poster page on a phone over slow 4G: bytes and LCP",
        run: PageLoadBenchmark.run),
    Section(name: "cards", summary: "Drawing a poster's 1200×630 preview card against encoding it alone", run: CardBenchmark.run),
    Section(name: "backup", summary: "tenbin backup of a live million-poster board; vote latency meanwhile", run: BackupBenchmark.run),
    Section(name: "postgres", summary: "PostgreSQL: grouped votes against pgbench, page and search latency", run: PostgresBenchmark.run),
    Section(
        name: "replicas", summary: "PostgreSQL: pages and searches per second with a hot standby against the primary alone",
        run: PostgresReplicaBenchmark.run),
    Section(
        name: "rolling", summary: "Rolling restart of two servers behind nginx under votes: 5xx, restart to ready",
        run: RollingBenchmark.run),
]

let requested = Array(CommandLine.arguments.dropFirst())
if requested.contains("-h") || requested.contains("--help") {
    print("USAGE: tenbin-bench [SECTION...]\n\nSECTIONS:")
    for section in sections { print("  \(section.name.padding(toLength: 12, withPad: " ", startingAt: 0))\(section.summary)") }
    exit(0)
}
let unknown = requested.filter { name in !sections.contains { $0.name == name } }
if !unknown.isEmpty {
    FileHandle.standardError.write(Data("Error: unknown section \(unknown.joined(separator: ", "))\n".utf8))
    exit(64)
}
do {
    let context = try BenchContext()
    for section in sections where requested.isEmpty || requested.contains(section.name) {
        print("\n## \(section.name): \(section.summary)\n")
        try section.run(context)
    }
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
