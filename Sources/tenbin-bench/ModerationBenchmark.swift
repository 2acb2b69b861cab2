import Foundation
import TenbinKit

/// What moderation costs: a report through the library (against a vote, one transaction each)
/// and through the server under wrk (against votes on the same server); votes/s through the
/// server with the vote limiter on (`--vote-rate`, every vote from its own address so none is
/// refused) and off (`--no-rate-limit`), in alternating rounds; and the time a phone-class
/// browser needs for a post's proof of work at the documented `--post-proof` (headless
/// Chromium with the CPU slowed fourfold).
enum ModerationBenchmark {
    static let posters = 200
    static let libraryReports = 2000
    static let rounds = 4
    static let roundSeconds = 4
    static let connections = 64
    /// The `--post-proof` docs/moderation.md suggests.
    static let proofBits = 18
    static let proofs = 9

    static func run(_ context: BenchContext) throws {
        let folder = try context.freshFolder("moderation")
        let photos = try context.photos(count: 2, width: 640, height: 480)
        try library(folder: folder, photos: photos)
        for tool in ["/usr/bin/wrk"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw BenchError("\(tool) is missing: install wrk (make bench does)")
        }
        try server(context, folder: folder, photos: photos)
        try proofOfWork(context, folder: folder)
    }

    /// A board of `posters` posters (the same two pictures, stored once) at `path`.
    static func board(at path: String, photos: [String], threshold: Int) throws -> Board {
        var configuration = Board.Configuration()
        configuration.reportThreshold = threshold
        let board = try Board(folder: path, configuration: configuration, create: true)
        for index in 0..<posters {
            _ = try board.post(PosterDraft(image1: .file(photos[0]), image2: .file(photos[1]), contents: "モデレーション \(index)"))
        }
        return board
    }

    /// µs per report and per vote through `Board`, each its own transaction.
    static func library(folder: String, photos: [String]) throws {
        // A threshold no poster reaches: the cost of counting, not of hiding.
        let board = try board(at: "\(folder)/library", photos: photos, threshold: 1000)
        defer { board.close() }
        var table = Table("through the library (SQLite, one transaction each)", "count", "µs each", "per second", "ratio to a vote")
        var start = DispatchTime.now().uptimeNanoseconds
        for index in 0..<libraryReports { try board.vote(id: Int64(index % posters + 1), side: .first) }
        let voteMicros = RollingBenchmark.seconds(since: start) * 1e6 / Double(libraryReports)
        start = DispatchTime.now().uptimeNanoseconds
        for index in 0..<libraryReports {
            try board.report(id: Int64(index % posters + 1), reason: .spam, reporter: "10.0.\(index / 256).\(index % 256)")
        }
        let reportMicros = RollingBenchmark.seconds(since: start) * 1e6 / Double(libraryReports)
        table.add("vote (Board.vote)", "\(libraryReports)", format(voteMicros), format(1e6 / voteMicros), "1.00")
        table.add(
            "report (Board.report)", "\(libraryReports)", format(reportMicros), format(1e6 / reportMicros),
            format(reportMicros / voteMicros, 2))
        table.print()
    }

    /// Reports and votes through `tenbin serve` under wrk.
    static func server(_ context: BenchContext, folder: String, photos: [String]) throws {
        let store = "\(folder)/serve"
        try board(at: store, photos: photos, threshold: 1000).close()
        let limited = try LoopbackHTTP.freePort()
        let unlimited = try LoopbackHTTP.freePort()
        // Both behind a (pretend) proxy: each request names its own client in X-Forwarded-For.
        let common = ["--trust-proxy", "--max-connections-per-ip", "0", "--report-threshold", "1000"]
        let withLimiter = try Child([context.tenbin, "--store", store, "serve", "--listen", "127.0.0.1:\(limited)"] + common)
        defer { _ = withLimiter.interrupt() }
        let withoutLimiter = try Child(
            [context.tenbin, "--store", store, "serve", "--listen", "127.0.0.1:\(unlimited)", "--no-rate-limit"] + common)
        defer { _ = withoutLimiter.interrupt() }
        try LoopbackHTTP.waitForListener(port: limited, seconds: 30)
        try LoopbackHTTP.waitForListener(port: unlimited, seconds: 30)

        var votes: [String: [Wrk]] = [:]
        var reports: [Wrk] = []
        for round in 0..<rounds {
            // Which server goes first alternates: the run after the reports' writes meets the
            // checkpoint of their log, and that must not fall on one side only.
            let servers = [("--vote-rate 10/40 (default)", limited), ("--no-rate-limit", unlimited)]
            for (name, port) in round % 2 == 0 ? servers : servers.reversed() {
                votes[name, default: []].append(
                    try Wrk.run(
                        url: "http://127.0.0.1:\(port)", connections: connections, seconds: roundSeconds,
                        script: try script(folder, "votes-\(round)", body: #"{"side": 1}"#, path: "votes", round: round)))
            }
            // Every report from a new address, so each is counted (none is a repeat, 409).
            reports.append(
                try Wrk.run(
                    url: "http://127.0.0.1:\(limited)", connections: connections, seconds: roundSeconds,
                    script: try script(folder, "reports-\(round)", body: #"{"reason": "spam"}"#, path: "reports", round: round)))
        }
        print(
            "\nVotes and reports through `tenbin serve --trust-proxy` under wrk (\(connections) connections, \(rounds) rounds of \(roundSeconds) s, "
                + "median), each request from an address of its own (X-Forwarded-For), spread over \(posters) posters.\n")
        var table = Table("requests", "per second", "p50 ms", "p99 ms", "refused or failed", "ratio")
        let baseline = Wrk.median(votes["--no-rate-limit"] ?? [])
        for name in ["--no-rate-limit", "--vote-rate 10/40 (default)"] {
            let run = Wrk.median(votes[name] ?? [])
            table.add(
                "votes, \(name)", format(run.rate), format(run.p50 * 1000, 2), format(run.p99 * 1000, 2),
                "\((votes[name] ?? []).map(\.failures).reduce(0, +))", format(run.rate / baseline.rate, 2))
        }
        let report = Wrk.median(reports)
        table.add(
            "reports (limiter on)", format(report.rate), format(report.p50 * 1000, 2), format(report.p99 * 1000, 2),
            "\(reports.map(\.failures).reduce(0, +))", format(report.rate / baseline.rate, 2))
        table.print()
    }

    /// A wrk script that POSTs `body` to `/api/v1/posters/N/PATH`, N in turn, each request from
    /// an address of its own (its thread, its count and the round in it).
    static func script(_ folder: String, _ name: String, body: String, path: String, round: Int) throws -> String {
        let file = "\(folder)/\(name).lua"
        let text = """
            local threads = 0
            function setup(thread)
              threads = threads + 1
              thread:set("offset", threads)
            end
            local counter = 0
            request = function()
              counter = counter + 1
              local address = "10." .. (\(round) * 16 + offset) .. "." .. (math.floor(counter / 256) % 256) .. "." .. (counter % 256)
              local headers = { ["Content-Type"] = "application/json", ["X-Forwarded-For"] = address }
              local poster = (math.floor(counter / 65536) * 7 + counter) % \(posters) + 1
              return wrk.format("POST", "/api/v1/posters/" .. poster .. "/\(path)", headers, '\(body)')
            end

            """
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The proof of work at ``proofBits`` in headless Chromium at 4× CPU throttling.
    static func proofOfWork(_ context: BenchContext, folder: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tests/Browser/post_proof_test.py").path
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), FileManager.default.fileExists(atPath: script) else {
            print("\nProof of work: skipped (no /usr/bin/chromium or no \(script)).")
            return
        }
        let store = "\(folder)/proof"
        let port = try LoopbackHTTP.freePort()
        let server = try Child([
            context.tenbin, "--store", store, "serve", "--listen", "127.0.0.1:\(port)", "--post-proof", "\(proofBits)",
        ])
        defer { _ = server.interrupt() }
        try LoopbackHTTP.waitForListener(port: port, seconds: 30)
        let (status, text) = try Shell.output([
            "/usr/bin/python3", script, "--url", "http://127.0.0.1:\(port)", "--tenbin", context.tenbin, "--store", store,
            "--fixtures", folder, "--out", "\(folder)/browser", "--measure", "\(proofs)", "--bits", "\(proofBits)",
        ])
        guard status == 0,
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("{") }),
            let measured = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let seconds = measured["seconds"] as? [Double], let tries = measured["tries"] as? [Int], !seconds.isEmpty
        else { throw BenchError("the proof-of-work measurement failed: \(text)") }
        let rates = zip(seconds, tries).map { Double($1) / $0 }.sorted()
        let sorted = seconds.sorted()
        let expected = Double(1 << proofBits)
        let median = rates[rates.count / 2]
        print(
            "\nProof of work in headless Chromium, CPU throttled 4× (Emulation.setCPUThrottlingRate 4: a mid-range phone), "
                + "\(seconds.count) challenges at --post-proof \(proofBits) through proof-worker.js:\n")
        var table = Table("--post-proof", "median s", "fastest s", "slowest s", "hashes/s (median)", "expected s (2^bits / rate)")
        table.add(
            "\(proofBits)", format(sorted[sorted.count / 2], 2), format(sorted[0], 2), format(sorted[sorted.count - 1], 2), format(median),
            format(expected / median, 2))
        for bits in [16, 20] { table.add("\(bits) (from the rate)", "", "", "", "", format(Double(1 << bits) / median, 2)) }
        table.print()
    }

    static func format(_ value: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", value) }
}
