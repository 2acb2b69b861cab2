import Dispatch
import Foundation
import TenbinKit
import TenbinSQLite

/// Many readers of one Board in one process: 64 concurrent readers of a page against the
/// same reads one at a time, with a writer voting all along; and the same with a single read
/// connection (every read taking turns, as before the read pool).
enum ReadsBenchmark {
    static let posters = 20_000
    static let readers = 64
    static let readsPerReader = 150

    static func run(_ context: BenchContext) throws {
        let folder = try store(context)
        var table = Table("reads of a 20-poster page", "read connections", "pages/s", "ratio", "votes/s during", "median", "p99")
        var reference = 0.0
        for (label, pool, concurrent) in [
            ("one at a time", SQLitePool.defaultSize, false), ("64 readers at once", SQLitePool.defaultSize, true),
            ("64 readers at once", 1, true),
        ] {
            let board = Board(
                Board.Configuration(), store: try SQLiteStore(folder: folder, create: false, readers: pool),
                blobs: BlobStore(storeFolder: folder))
            defer { board.close() }
            let (rate, votes, latencies) = try measure(board, concurrent: concurrent)
            if !concurrent { reference = rate }
            table.add(
                label, "\(pool)", String(format: "%.0f", rate), Format.ratio(rate / reference), String(format: "%.0f", votes),
                Format.ms(latencies.median), Format.ms(latencies.percentile(99)))
        }
        table.print()
        print(
            "\nEach reader reads \(readsPerReader) pages (newest, popular, and a search, in turn) of a store of \(posters) posters,"
                + " while one thread votes about a thousand times a second. Aim: close to 2× on 2 cores, no reader waiting on the writer.")
    }

    /// Pages read per second, votes committed per second meanwhile, and per-read latency.
    static func measure(_ board: Board, concurrent: Bool) throws -> (Double, Double, Samples) {
        let total = readers * readsPerReader
        let latencies = Locked([Double]())
        let failure = Locked<(any Error)?>(nil)
        let stop = Locked(false)
        let votes = Locked(0)
        let writer = Thread {
            while !stop.withLock({ $0 }) {
                do {
                    try board.vote(id: Int64.random(in: 1...Int64(posters)), side: .first)
                    votes.withLock { $0 += 1 }
                    // About a thousand votes a second: a busy board, not a core spent writing.
                    usleep(1000)
                } catch {
                    failure.withLock { $0 = error }
                    return
                }
            }
        }
        writer.start()
        let start = DispatchTime.now().uptimeNanoseconds
        @Sendable func read(_ index: Int) {
            let begin = DispatchTime.now().uptimeNanoseconds
            do {
                switch index % 3 {
                case 0: _ = try board.page(order: .new, limit: 20)
                case 1: _ = try board.page(order: .popular, limit: 20)
                default: _ = try board.search(query: "写真", limit: 20)
                }
            } catch {
                failure.withLock { $0 = error }
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9
            latencies.withLock { $0.append(seconds) }
        }
        if concurrent {
            DispatchQueue.concurrentPerform(iterations: readers) { reader in
                for index in 0..<readsPerReader { read(reader + index) }
            }
        } else {
            for index in 0..<total { read(index) }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        stop.withLock { $0 = true }
        while !writer.isFinished { usleep(1000) }
        if let error = failure.withLock({ $0 }) { throw error }
        var samples = Samples()
        for value in latencies.withLock({ $0 }) { samples.add(value) }
        return (Double(total) / seconds, Double(votes.withLock { $0 }) / seconds, samples)
    }

    /// A store of generated posters, built once and kept in the scratch folder.
    static func store(_ context: BenchContext) throws -> String {
        let path = "\(context.scratch)/reads-store-\(posters)"
        if FileManager.default.fileExists(atPath: "\(path)/complete") { return path }
        let folder = try context.freshFolder("reads-store-\(posters)")
        let store = try SQLiteStore(folder: folder, create: true)
        defer { store.close() }
        let images = ["1", "2"].map { digit in
            StoredImage(digest: Digest(hex: String(repeating: digit, count: 64))!, format: .jpeg, width: 640, height: 480, bytes: 40_000)
        }
        var random = Random(seed: 3)
        try store.write { writing in
            for image in images { try writing.insertBlob(image, source: nil, encodingKey: "bench") }
            for _ in 0..<posters {
                let poster = NewPoster(contents: Corpus.text(&random), hashtags: Corpus.hashtags(&random), images: images)
                _ = try writing.insertPoster(
                    poster, createdAt: Timestamp(secondsSince1970: 1_764_450_000),
                    search: SearchRecord(contents: poster.contents, hashtags: poster.hashtags))
            }
        }
        guard FileManager.default.createFile(atPath: "\(folder)/complete", contents: Data()) else {
            throw BenchError("cannot write \(folder)/complete")
        }
        return folder
    }
}
