import Foundation
import TenbinKit
import TenbinSQLite

/// `tenbin backup` of a live million-poster SQLite board: how long it takes, and what it costs
/// the votes cast meanwhile, against the same votes on the same board with no backup running.
enum BackupBenchmark {
    /// `$TENBIN_BENCH_BACKUP_POSTERS` overrides, for a quick run.
    static let posters = ProcessInfo.processInfo.environment["TENBIN_BENCH_BACKUP_POSTERS"].flatMap { Int($0) } ?? 1_000_000
    /// How long the votes with no backup running are timed.
    static let quietSeconds = 5.0

    static func run(_ context: BenchContext) throws {
        // The search section's store (built once and cached), copied so the votes here leave
        // it as that section expects it.
        let (cached, _) = try SearchBenchmark.store(size: posters, context: context)
        let live = try context.freshFolder("backup-live")
        let destination = "\(context.scratch)/backup-out"
        defer {
            try? FileManager.default.removeItem(atPath: live)
            try? FileManager.default.removeItem(atPath: destination)
        }
        try Shell.run("cp", "-a", "--reflink=auto", "\(cached)/.", live)
        let board = try Board(folder: live, create: false)
        defer { board.close() }
        let quiet = try votes(on: board) { $0 >= quietSeconds }
        try? FileManager.default.removeItem(atPath: destination)
        let backup = Locked<Result<Shell.Measurement, any Error>?>(nil)
        let tenbin = context.tenbin
        let thread = Thread {
            let result = Result { try Shell.measure([tenbin, "--store", live, "backup", "--to", destination]) }
            backup.withLock { $0 = result }
        }
        thread.start()
        let busy = try votes(on: board) { _ in backup.withLock { $0 != nil } }
        let measured = try backup.withLock { $0 }!.get()  // set before the votes loop ended
        guard measured.status == 0 else { throw BenchError("tenbin backup exited \(measured.status)") }
        let checked = try Shell.measure([context.tenbin, "--store", destination, "check"])
        guard checked.status == 0 else { throw BenchError("tenbin check of the backup exited \(checked.status)") }
        var table = Table(
            "posters", "backup", "peak RSS", "votes: quiet p50", "quiet p99", "during backup p50", "during p99", "p99 ratio",
            "votes during")
        table.add(
            posters.formatted(), String(format: "%.1f s", measured.seconds), Format.mb(measured.peakRSS), Format.ms(quiet.median),
            Format.ms(quiet.percentile(99)), Format.ms(busy.median), Format.ms(busy.percentile(99)),
            Format.ratio(busy.percentile(99) / quiet.percentile(99)), busy.values.count.formatted())
        table.print()
        print(
            """

            `tenbin backup --to DIR` (release build) of a copy of the search section's store, its
            image files hard-linked, then checked and compared with its snapshot; the backup folder
            passes `tenbin check` afterwards. Meanwhile one thread of this process votes on random
            posters of the same board, one transaction a vote (Board.vote), as fast as they commit:
            their latency while the backup runs, against the same loop for \(Int(quietSeconds)) s before it.
            """)
    }

    /// Votes on random posters of `board` one after another until `done(elapsed seconds)`;
    /// each vote's latency.
    static func votes(on board: Board, until done: (Double) -> Bool) throws -> Samples {
        var samples = Samples()
        var random = Random(seed: 3)
        let start = DispatchTime.now().uptimeNanoseconds
        var now = start
        while !done(Double(now - start) / 1e9) {
            let id = Int64(1 + random.next(posters))
            try board.vote(id: id, side: random.next(2) == 0 ? .first : .second)
            let after = DispatchTime.now().uptimeNanoseconds
            samples.add(Double(after - now) / 1e9)
            now = after
        }
        return samples
    }
}
