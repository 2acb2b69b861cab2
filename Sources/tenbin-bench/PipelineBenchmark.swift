import Foundation
import Synchronization
import TenbinKit
import TenbinSQLite

/// The image pipeline on 100 posters of sample-sized photos (900×600 JPEGs, 200 distinct
/// images): cold loads of every thumbnail with one worker and with the task group, warm
/// (cached) loads, coalescing of concurrent requests, and raw cache speed.
enum PipelineBenchmark {
    /// The box `tenbin list` loads thumbnails at.
    static let thumbnail = ImageSize.thumbnail(width: 32, height: 32)

    static func run(_ context: BenchContext) throws {
        let board = try posterBoard(context)
        defer { board.close() }
        let posters = try board.posters(limit: 100)
        let requests = posters.flatMap { $0.imageRequests(size: thumbnail) }
        let cores = ImagePipeline.Configuration.defaultConcurrentLoads
        let rounds = 11

        // Reference: the same reads and decodes in a plain loop, no pipeline.
        let codec = ImageCodec()
        let blobs = BlobStore(storeFolder: storeFolder(context))
        var plain = Samples()
        for _ in 0..<rounds {
            plain.add(
                try time {
                    for request in requests {
                        let bytes = try blobs.read(request.digest)
                        _ = try codec.decode(bytes, size: request.size, source: "\(request)")
                    }
                })
        }
        var single = Samples()
        var group = Samples()
        var warm = Samples()
        for _ in 0..<rounds {
            // Alternate so that drift in the machine's load affects both alike.
            let one = board.imagePipeline(maxConcurrentLoads: 1)
            single.add(try time { try check(blockingAwait { await one.images(for: requests) }) })
            let many = board.imagePipeline()
            group.add(try time { try check(blockingAwait { await many.images(for: requests) }) })
            for _ in 0..<10 {
                warm.add(try time { try check(blockingAwait { await many.images(for: requests) }) })
            }
        }
        var table = Table("200 thumbnails (32×32 box) of 100 posters", "median", "min", "p90", "vs one worker (medians)")
        for (label, samples) in [
            ("plain loop: read + decode, no pipeline", plain), ("cold cache, one worker", single),
            ("cold cache, task group (\(cores) at once)", group), ("warm cache", warm),
        ] {
            table.add(
                label, Format.ms(samples.median), Format.ms(samples.percentile(0)), Format.ms(samples.percentile(90)),
                Format.ratio(single.median / samples.median))
        }
        table.print()
        print("\n\(rounds) rounds (warm: \(rounds * 10)); blob files are in the page cache. \"vs one worker\" is how many times faster.")
        print("Task group over one worker: \(Format.ratio(single.median / group.median)) (aim ≥ 1.80× on two cores).")
        print("Warm over cold (task group): \(Format.ratio(group.median / warm.median)) (aim ≥ 100×).\n")

        try coalescing(board: board, poster: posters[0], blobs: blobs)
        print()
        cacheSpeed()
    }

    /// 100 concurrent requests for one full-size image: how many decodes, and how long.
    static func coalescing(board: Board, poster: Poster, blobs: BlobStore) throws {
        let decodes = Mutex(0)
        let codec = ImageCodec()
        var table = Table("100 concurrent requests for one image", "decodes", "time")
        for (label, size) in [("full size (900×600)", ImageSize.full), ("thumbnail", thumbnail)] {
            let pipeline = ImagePipeline(
                ImagePipeline.Configuration(
                    cache: LRUCache<ImageRequest, PixelBuffer>(limits: .default), maxConcurrentLoads: 2,
                    read: { try blobs.read($0) },
                    decode: { bytes, request in
                        decodes.withLock { $0 += 1 }
                        return try codec.decode(bytes, size: request.size, source: "\(request)")
                    }))
            decodes.withLock { $0 = 0 }
            let request = ImageRequest(poster.images[0].digest, size: size)
            let seconds = try time {
                try blockingAwait {
                    await withTaskGroup(of: Bool.self) { group in
                        for _ in 0..<100 { group.addTask { (try? await pipeline.image(for: request)) != nil } }
                        return await group.reduce(true) { $0 && $1 }
                    }
                }.orThrow("a coalesced request failed")
            }
            table.add(label, "\(decodes.withLock { $0 })", Format.ms(seconds))
        }
        table.print()
    }

    /// Get and set on a cache holding 10,000 of 20,000 keys (so half the gets hit), 3 gets to
    /// a set: the pipeline's image cache (keyed by `ImageRequest`, specialised inside
    /// TenbinKit) and a plain `LRUCache<Int, Int>` (generic code called from another module).
    static func cacheSpeed() {
        let operations = 2_000_000
        let image = PixelBuffer(width: 1, height: 1, channels: 1, pixels: [0])
        let keys = (0..<20_000).map { ImageRequest(Digest(of: withUnsafeBytes(of: $0) { Array($0) }), size: thumbnail) }
        var table = Table("cache, 10,000 entries, 3 gets : 1 set", "threads", "operations/s", "hit rate")
        for threads in [1, 2] {
            let cache = LRUCache<ImageRequest, PixelBuffer>(limits: CacheLimits(bytes: 1 << 40, count: 10_000))
            for key in keys.prefix(10_000) { cache.store(image, for: key) }
            let seconds = measureOperations(operations, threads: threads) { key, isSet in
                if isSet { cache.store(image, for: keys[key]) } else { _ = cache.image(for: keys[key]) }
            }
            table.add("image cache (ImageRequest keys)", "\(threads)", rate(operations, seconds), hitRate(cache.statistics))
        }
        for threads in [1, 2] {
            let cache = LRUCache<Int, Int>(costLimit: 1 << 40, countLimit: 10_000)
            for key in 0..<10_000 { cache.setValue(key, forKey: key, cost: 1) }
            let seconds = measureOperations(operations, threads: threads) { key, isSet in
                if isSet { cache.setValue(key, forKey: key, cost: 1) } else { _ = cache.value(forKey: key) }
            }
            table.add("LRUCache<Int, Int>", "\(threads)", rate(operations, seconds), hitRate(cache.statistics))
        }
        table.print()
        print("\nAll threads share the cache's one lock.")
    }

    /// Runs `operations` random operations on keys 0..<20,000 split over `threads`; every
    /// fourth is a set. Returns the wall time.
    static func measureOperations(_ operations: Int, threads: Int, _ body: @escaping @Sendable (Int, Bool) -> Void) -> Double {
        let perThread = operations / threads
        let start = DispatchTime.now().uptimeNanoseconds
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var state = UInt64(thread + 1) &* 0x9E37_79B9_7F4A_7C15
            for step in 0..<perThread {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                body(Int(state >> 33) % 20_000, step & 3 == 0)
            }
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func rate(_ operations: Int, _ seconds: Double) -> String {
        Format.number(Double(operations) / seconds / 1e6, digits: 2) + " M"
    }

    static func hitRate(_ statistics: CacheStatistics) -> String {
        Format.number(Double(statistics.hits) / Double(statistics.hits + statistics.misses) * 100) + " %"
    }

    /// The folder of ``posterBoard(_:)``'s store.
    static func storeFolder(_ context: BenchContext) -> String {
        "\(context.scratch)/pipeline-store"
    }

    /// A board with 100 posters made from 200 distinct 900×600 photos, built once and kept.
    static func posterBoard(_ context: BenchContext) throws -> Board {
        let path = storeFolder(context)
        if let board = try? Board(folder: path, create: false) {
            if (try? board.count()) == 100 { return board }
            board.close()
        }
        let photos = try context.photos(count: 200, width: 900, height: 600)
        let folder = try context.freshFolder("pipeline-store")
        let board = try Board(folder: folder, create: true)
        for index in 0..<100 {
            _ = try board.post(
                PosterDraft(image1: .file(photos[index * 2]), image2: .file(photos[index * 2 + 1]), contents: "poster \(index)"))
        }
        return board
    }

    /// Throws unless every image loaded.
    static func check(_ results: [Result<PixelBuffer, any Error>]) throws {
        for result in results { _ = try result.get() }
    }

    static func time(_ body: () throws -> Void) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// Runs async work from the benchmark's synchronous code, blocking this (non-pool) thread.
    static func blockingAwait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let value = await work()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }  // set before the signal
    }
}

extension Bool {
    fileprivate func orThrow(_ message: String) throws {
        if !self { throw BenchError(message) }
    }
}
