import Foundation
import TenbinKit
import TenbinSQLite

/// Trending order: a page at 1M posters beside popular's (the `search` section's generated
/// store, whose votes are spread over 30 days), and what keeping the score costs a vote: the
/// vote batcher's CPU per vote with the score update against without it
/// (`TENBIN_BENCH_NO_TRENDING=1` on a second store), interleaved in the same run.
enum TrendingBenchmark {
    /// `$TENBIN_BENCH_TRENDING_POSTERS` overrides, for a quick run.
    static let posters = ProcessInfo.processInfo.environment["TENBIN_BENCH_TRENDING_POSTERS"].flatMap { Int($0) } ?? 1_000_000

    /// `$TENBIN_BENCH_TRENDING=pages`, `votes` or `serve` runs one part (for profiling).
    static func run(_ context: BenchContext) throws {
        let part = ProcessInfo.processInfo.environment["TENBIN_BENCH_TRENDING"] ?? ""
        if part.isEmpty || part == "pages" { try pages(context) }
        if part.isEmpty || part == "votes" {
            if part.isEmpty { print() }
            try voteCost(context)
        }
        if part.isEmpty || part == "serve" {
            if part.isEmpty { print() }
            try serverVoteCost(context)
        }
    }

    /// First pages and pages after a cursor 50 pages deep, popular and trending, 200 each.
    static func pages(_ context: BenchContext) throws {
        let (path, _) = try SearchBenchmark.store(size: posters, context: context)
        let board = try Board(folder: path, create: false)
        defer { board.close() }
        var table = Table("\(posters.formatted()) posters, SQLite, page of 20", "median", "p90", "p99", "max")
        for order in [FeedOrder.popular, .trending] {
            var deep = try board.page(order: order, limit: 20)
            for _ in 0..<50 { deep = try board.page(order: order, limit: 20, after: deep.next) }
            let cursor = deep.next
            for (label, after) in [("first page", nil), ("after a cursor 1,000 posters deep", cursor)] {
                var samples = Samples()
                for _ in 0..<200 {
                    let start = DispatchTime.now().uptimeNanoseconds
                    _ = try board.page(order: order, limit: 20, after: after)
                    samples.add(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                }
                table.add(
                    "\(order.rawValue), \(label)", Format.ms(samples.median), Format.ms(samples.percentile(90)),
                    Format.ms(samples.percentile(99)), Format.ms(samples.percentile(100)))
            }
        }
        table.print()
        print("\nEach page read 200 times in process, with hashtags. Aim for trending: median < 5 ms, p99 < 50 ms.")
    }

    /// 10,000 votes at a time from 64 concurrent voters through `Board.castVote` (the server's
    /// path, without HTTP), spread over 10,000 posters, on a store scoring votes and one not,
    /// alternated; the process's CPU time per 10,000 votes.
    static func voteCost(_ context: BenchContext) throws {
        let boards = try [true, false].map { skip -> Board in
            let folder = try context.freshFolder(skip ? "trending-votes-without" : "trending-votes-with")
            if skip { setenv("TENBIN_BENCH_NO_TRENDING", "1", 1) }
            defer { unsetenv("TENBIN_BENCH_NO_TRENDING") }
            let board = try Board(folder: folder, create: true)
            try seed(board)
            return board
        }
        defer { for board in boards { board.close() } }
        let rounds = 7
        let votes = 10_000
        var cpu = [Samples(), Samples()]
        var rate = [Samples(), Samples()]
        for round in 0..<(rounds * 2) {
            // Alternate, so drift in the machine's load affects both alike.
            let which = round % 2 == 0 ? (round / 2) % 2 : 1 - (round / 2) % 2
            let before = processCPU()
            let start = DispatchTime.now().uptimeNanoseconds
            try castVotes(boards[which], votes: votes, seed: UInt64(round))
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            cpu[which].add(processCPU() - before)
            rate[which].add(Double(votes) / seconds)
        }
        var table = Table("10,000 votes, 64 voters, 10,000 posters", "votes/s", "CPU s per 10k votes", "CPU ratio")
        table.add(
            "without the score (TENBIN_BENCH_NO_TRENDING=1)", Format.number(rate[0].median, digits: 0),
            String(format: "%.3f", cpu[0].median), Format.ratio(1))
        table.add(
            "with the score (trending)", Format.number(rate[1].median, digits: 0), String(format: "%.3f", cpu[1].median),
            Format.ratio(cpu[1].median / cpu[0].median))
        table.print()
        print("\nMedians of \(rounds) rounds each, interleaved; the batcher's commits included (timelines in both). Aim: CPU ratio ≤ 1.05.")
    }

    /// What a vote costs the whole server, HTTP included, as the issue's aim counts it: `tenbin
    /// serve`'s CPU (from /proc, wrk's own excluded) per vote answered, votes spread at random
    /// over 10,000 posters (every vote a different poster's in its batch: the score's worst
    /// case), for this build with the score, this build without it, and with
    /// `TENBIN_BENCH_BASELINE` a build from before timelines, the vote log and trending order
    /// ("today" in the aim), each on a store of its own imported from the same manifest, in
    /// rotating rounds.
    static func serverVoteCost(_ context: BenchContext) throws {
        let files = try ImportBenchmark.manifestFiles(context, lines: 10_000)
        let baseline = ProcessInfo.processInfo.environment["TENBIN_BENCH_BASELINE"].flatMap { $0.isEmpty ? nil : $0 }
        var builds = [("this build, with the score", context.tenbin, false), ("this build, without the score", context.tenbin, true)]
        if let baseline { builds.insert(("baseline build (TENBIN_BENCH_BASELINE)", baseline, false), at: 0) }
        var servers: [(name: String, child: Child, port: UInt16)] = []
        defer { for server in servers { _ = server.child.interrupt() } }
        for (index, (name, tenbin, skip)) in builds.enumerated() {
            let store = try context.freshFolder("trending-serve-\(index)")
            for manifest in [files.pairs, files.manifest] {
                let run = try Shell.measure([tenbin, "--store", store, "import", manifest])
                guard run.status == 0 else { throw BenchError("\(tenbin) import \(manifest) exited \(run.status)") }
            }
            let port = try LoopbackHTTP.freePort()
            if skip { setenv("TENBIN_BENCH_NO_TRENDING", "1", 1) }
            defer { unsetenv("TENBIN_BENCH_NO_TRENDING") }
            let child = try Child([
                tenbin, "--store", store, "serve", "--listen", "127.0.0.1:\(port)", "--no-rate-limit", "--max-connections-per-ip", "0",
            ])
            servers.append((name, child, port))
            try LoopbackHTTP.waitForListener(port: port, seconds: 30)
        }
        let posters = files.images / 2 + 10_000
        let script = "\(try context.freshFolder("trending-serve-script"))/votes.lua"
        try Wrk.randomVoteScript(posters: posters).write(toFile: script, atomically: true, encoding: .utf8)
        let url = { (port: UInt16) in "http://127.0.0.1:\(port)" }
        for server in servers { _ = try Wrk.run(url: url(server.port), connections: 64, seconds: 2, script: script) }
        let rounds = 5
        var perVote = Array(repeating: Samples(), count: servers.count)
        var rates = Array(repeating: Samples(), count: servers.count)
        for round in 0..<rounds {
            // Rotate who goes first, so drift in the machine's load is shared.
            for step in 0..<servers.count {
                let which = (round + step) % servers.count
                let before = try LiveBenchmark.statSeconds(of: servers[which].child.pid)
                let run = try Wrk.run(url: url(servers[which].port), connections: 64, seconds: 5, script: script)
                let cpu = try LiveBenchmark.statSeconds(of: servers[which].child.pid) - before
                let answered = run.requests - run.failures
                guard answered > 0 else { throw BenchError("\(servers[which].name) answered no vote") }
                if run.failures > 0 { print("Warning: \(run.failures) vote requests to \(servers[which].name) failed.") }
                perVote[which].add(cpu / Double(answered))
                rates[which].add(run.rate)
            }
        }
        let reference = perVote[0].median
        var table = Table(
            "POST /api/v1/posters/{id}/votes, 64 connections, \(posters.formatted()) posters at random", "votes/s",
            "server CPU per vote", "ratio")
        for (index, server) in servers.enumerated() {
            table.add(
                server.name, Format.number(rates[index].median, digits: 0), Format.microseconds(perVote[index].median),
                Format.ratio(perVote[index].median / reference))
        }
        table.print()
        print("\nMedians of \(rounds) rotating 5 s wrk runs; CPU is the server process's own (utime + stime). Aim: ≤ 1.05× today's.")
        if baseline == nil {
            print(
                "Ratios are to this build's; TENBIN_BENCH_BASELINE=PATH adds a build from before issue 30 (dcac88a), the aim's \"today\".")
        }
    }

    /// 10,000 posters with stand-in images.
    private static func seed(_ board: Board) throws {
        // 64 hex digits: always a digest.
        let image = StoredImage(digest: Digest(hex: String(repeating: "ab", count: 32))!, format: .jpeg, width: 1, height: 1, bytes: 1)
        try board.store.write { writing in
            try writing.insertBlob(image, source: nil, encodingKey: "bench")
            let posters = (0..<10_000).map { NewPoster(contents: "poster \($0)", hashtags: [], images: [image, image]) }
            _ = try writing.insertPosters(
                posters, createdAt: Timestamp(secondsSince1970: 1_764_450_000),
                search: posters.map { SearchRecord(contents: $0.contents, hashtags: $0.hashtags) })
        }
    }

    /// `votes` votes on random posters from 64 concurrent tasks, waited for from this thread.
    private static func castVotes(_ board: Board, votes: Int, seed: UInt64) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<(any Error)?>(nil)
        Task {
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for voter in 0..<64 {
                        group.addTask {
                            var random = Random(seed: seed &* 64 &+ UInt64(voter))
                            for _ in 0..<(votes / 64) {
                                _ = try await board.castVote(
                                    id: Int64(1 + random.next(10_000)), side: random.next(2) == 0 ? .first : .second)
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            } catch {
                failure.withLock { $0 = error }
            }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// This process's CPU time so far, user and system, in seconds.
    private static func processCPU() -> Double {
        var usage = rusage()
        _ = getrusage(RUSAGE_SELF.rawValue, &usage)  // cannot fail for RUSAGE_SELF
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
