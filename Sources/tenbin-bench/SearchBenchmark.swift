import Foundation
import TenbinKit
import TenbinSQLite

/// Search over 100,000 and 1,000,000 posters: the index against a plain `LIKE '%w%'` scan of
/// the same normalised keys, in the same process and the same run, with every checked
/// query's results compared.
enum SearchBenchmark {
    /// `$TENBIN_BENCH_SEARCH_SIZES` (comma-separated) overrides, for a quick run.
    static let sizes =
        ProcessInfo.processInfo.environment["TENBIN_BENCH_SEARCH_SIZES"]?.split(separator: ",").compactMap { Int($0) }
        ?? [100_000, 1_000_000]
    /// Queries timed per kind through the index.
    static let queriesPerKind = 300
    /// Of those, how many are also run in popular order.
    static let popularPerKind = 50
    /// Of those, how many are also run as a scan (a scan of 1M keys takes about half a second).
    static let scansPerKind = [100_000: 100, 1_000_000: 25]

    static func run(_ context: BenchContext) throws {
        var table = Table(
            "posters", "words of", "index median", "index p99", "popular median", "popular p99", "scan: page", "scan: all rows",
            "ratio", "checked")
        var sizeTable = Table("posters", "build", "posters + hashtags", "search key", "search index", "whole file")
        for size in sizes {
            let (path, buildSeconds) = try store(size: size, context: context)
            let board = try Board(folder: path, create: false)
            defer { board.close() }
            var random = Random(seed: 7)
            for kind in QueryKind.allCases {
                let queries = (0..<queriesPerKind).map { _ in kind.query(&random) }
                // One untimed pass warms SQLite's page cache, as a running program's would be.
                for query in queries.prefix(20) { _ = try board.search(query: query) }
                let index = try time(queries) { _ = try board.search(query: $0) }
                let popular = try time(Array(queries.prefix(popularPerKind))) { _ = try board.search(query: $0, order: .popular) }
                var pageScan = Samples()
                var fullScan = Samples()
                var checked = 0
                var matching = 0
                for query in queries.prefix(scansPerKind[size] ?? 10) {
                    var start = DispatchTime.now().uptimeNanoseconds
                    let expected = try board.scanSearchIDs(query: query, limit: 20)
                    pageScan.add(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                    start = DispatchTime.now().uptimeNanoseconds
                    let expectedAll = try board.scanSearchIDs(query: query)
                    fullScan.add(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                    let found = try board.search(query: query).map(\.id)
                    guard found == expected else {
                        throw BenchError("search for \(query) found \(found.prefix(5))… but the scan found \(expected.prefix(5))…")
                    }
                    let popularPage = try board.search(query: query, order: .popular, limit: 20).map(\.id)
                    let expectedPopular = try board.scanSearchIDs(query: query, order: .popular, limit: 20)
                    guard popularPage == expectedPopular else {
                        throw BenchError(
                            "popular search for \(query) found \(popularPage.prefix(5))… but the scan \(expectedPopular.prefix(5))…")
                    }
                    // All matches, not just the first page, must agree too.
                    let all = try board.search(query: query, limit: Int.max).map(\.id)
                    guard all == expectedAll else {
                        throw BenchError("search for \(query) found \(all.count) posters in all, the scan \(expectedAll.count)")
                    }
                    checked += 1
                    if !expected.isEmpty { matching += 1 }
                }
                table.add(
                    size.formatted(), kind.label, Format.ms(index.median), Format.ms(index.percentile(99)), Format.ms(popular.median),
                    Format.ms(popular.percentile(99)), Format.ms(pageScan.median), Format.ms(fullScan.median),
                    Format.ratio(fullScan.median / index.median), "\(checked) identical (\(matching) non-empty)")
            }
            let sizes = try tableSizes(database: "\(path)/tenbin.sqlite")
            let file = (try FileManager.default.attributesOfItem(atPath: "\(path)/tenbin.sqlite")[.size] as? Int) ?? 0
            sizeTable.add(
                size.formatted(), buildSeconds.map { String(format: "%.0f s", $0) } ?? "cached",
                Format.mb(sizes.posters), Format.mb(sizes.key), Format.mb(sizes.index), Format.mb(file))
        }
        table.print()
        print(
            """

            \(queriesPerKind) queries of 1–3 words per kind (words cut from the corpus's vocabulary, retyped
            in random widths and kana), timed in-process through Board.search: the 20 newest matches with
            their hashtags; "popular" is the first \(popularPerKind) of them in popular order, which must rank
            every match. The scan is `key LIKE '%w%' ESCAPE '\\'` over the normalised keys: "page" stops
            after 20 newest matches (quick when matches are common), "all rows" reads every key (what any
            query costs a scan when fewer than a page match). Ratio = scan all rows / index median. For the
            queries scanned, the index's first page (newest and popular) and its full set of matches were
            identical to the scan's. Aim at 1M: median < 5 ms, p99 < 50 ms.

            """)
        sizeTable.print()
        print("\nSizes from SQLite's dbstat (tables with their indexes). Build = generating and inserting through SQLiteStore's write.")
    }

    /// Times `body` once per query.
    static func time(_ queries: [String], _ body: (String) throws -> Void) throws -> Samples {
        var samples = Samples()
        for query in queries {
            let start = DispatchTime.now().uptimeNanoseconds
            try body(query)
            samples.add(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return samples
    }

    /// A store of `size` generated posters, built once and cached in the scratch folder.
    static func store(size: Int, context: BenchContext) throws -> (path: String, buildSeconds: Double?) {
        let path = "\(context.scratch)/search-store-\(size)-v9"
        if FileManager.default.fileExists(atPath: "\(path)/complete") {
            // Opened once, untimed: a store cached by an older tenbin is upgraded here, not in a
            // timed command.
            try SQLiteStore(folder: path, create: false).close()
            return (path, nil)
        }
        let folder = try context.freshFolder("search-store-\(size)-v9")
        let store = try SQLiteStore(folder: folder, create: true)
        defer { store.close() }
        // Two small real images, their files in the store, so the store passes `tenbin check`
        // and `tenbin copy` can copy it (the postgres section does).
        let codec = ImageCodec()
        let images = try [40, 200].map { shade in
            let pixels = PixelBuffer(width: 64, height: 48, channels: 3, pixels: [UInt8](repeating: UInt8(shade), count: 64 * 48 * 3))
            let encoded = try codec.encode(pixels, source: "bench image")
            let digest = try BlobStore(storeFolder: folder).write(encoded.bytes)
            return StoredImage(digest: digest, format: .jpeg, width: 64, height: 48, bytes: encoded.bytes.count)
        }
        var random = Random(seed: UInt64(size))
        let start = DispatchTime.now().uptimeNanoseconds
        let batch = 10_000
        for first in stride(from: 0, to: size, by: batch) {
            let posters = (first..<min(size, first + batch)).map { _ in
                NewPoster(contents: Corpus.text(&random), hashtags: Corpus.hashtags(&random), images: images)
            }
            try store.write { writing in
                for image in images { try writing.insertBlob(image, source: nil, encodingKey: "bench") }
                for poster in posters {
                    let id = try writing.insertPoster(
                        poster, createdAt: Timestamp(secondsSince1970: 1_764_450_000),
                        search: SearchRecord(contents: poster.contents, hashtags: poster.hashtags))
                    // One poster in ten has votes, a few of them many, so popular order means something;
                    if random.next(10) == 0 {
                        let first = random.next(2) == 0
                        let votes = 1 + random.next(random.next(50) + 1)
                        // at a time in the 30 days after the posts, so trending order differs from popular
                        // (from the id, not the generator, so the posters' text is what it was in v8).
                        let time = Timestamp(secondsSince1970: 1_764_450_000 + id &* 7_919 % (30 * 86_400))
                        _ = try writing.addVotes([VoteDelta(id: id, good1: first ? votes : 0, good2: first ? 0 : votes)], at: time)
                    }
                }
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard FileManager.default.createFile(atPath: "\(folder)/complete", contents: Data()) else {
            throw BenchError("cannot write \(folder)/complete")
        }
        return (folder, seconds)
    }

    /// Bytes on disk of the poster tables, the search key table, and the search index.
    static func tableSizes(database: String) throws -> (posters: Int, key: Int, index: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [database, "SELECT name, sum(pgsize) FROM dbstat GROUP BY name"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var posters = 0
        var key = 0
        var index = 0
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "|")
            guard parts.count == 2, let bytes = Int(parts[1]) else { continue }
            let name = parts[0]
            if name.hasPrefix("search_posting") || name.hasPrefix("search_segment") || name.hasPrefix("search_stale") {
                index += bytes
            } else if name.hasPrefix("search_key") || name.hasPrefix("sqlite_autoindex_search_key") {
                key += bytes
            } else if name.hasPrefix("poster") || name.hasPrefix("hashtag") || name.hasPrefix("sqlite_autoindex_hashtag") {
                posters += bytes
            }
        }
        return (posters, key, index)
    }

    /// The three query kinds: every word of one, of two, or of three or more characters.
    enum QueryKind: CaseIterable {
        case one, two, longer

        var label: String {
            switch self {
            case .one: "1 character"
            case .two: "2 characters"
            case .longer: "3+ characters"
            }
        }

        /// 1–3 words cut from the corpus's vocabulary, typed in a random width or kana.
        func query(_ random: inout Random) -> String {
            let count = 1 + random.next(3)
            return (0..<count).map { _ -> String in
                switch self {
                case .one: return Corpus.retyped(String(random.pick(Corpus.characters)), &random)
                case .two: return Corpus.retyped(Corpus.piece(length: 2, &random), &random)
                case .longer: return Corpus.retyped(Corpus.piece(length: 3 + random.next(4), &random), &random)
                }
            }.joined(separator: random.next(4) == 0 ? "\u{3000}" : " ")
        }
    }
}
