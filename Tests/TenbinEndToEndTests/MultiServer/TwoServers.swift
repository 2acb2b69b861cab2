import Foundation
import TenbinKit
import TestPostgresServer
import Testing

/// Every end-to-end test of several `tenbin serve` processes on one PostgreSQL database, one at
/// a time: each starts two servers and many voting threads, and the machine's few cores are
/// shared with the rest of the suite. Needs the throwaway server `make test` starts
/// (scripts/postgres.sh run); without one the suite is skipped, except under `CI=true`, where
/// it must run and fails instead.
@Suite(.ownThreads, .serialized, .enabled(if: TestPostgresServer.suitesRun))
struct MultiServerTests {}

/// A database of its own on the test PostgreSQL server for one test, dropped when released.
final class SharedDatabase {
    let name: String
    /// The database's URL (the test server's superuser).
    let url: String
    private let serverURL: String

    init() throws {
        let server = try TestPostgresServer.requireURL()
        serverURL = server
        name = "tenbin_multi_\(UInt32.random(in: 0...UInt32.max))"
        let created = try Shell.capture(["psql", "-X", "-q", server, "-c", "CREATE DATABASE \(name)"])
        try #require(created.status == 0, "CREATE DATABASE: \(created.stderr)")
        url = server.replacingDatabase(with: name)
    }

    deinit {
        // FORCE ends the connections of a server still running (one killed with -9 leaves none).
        _ = try? Shell.capture(["psql", "-X", "-q", serverURL, "-c", "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"])
    }

    /// Runs one SQL statement with psql; its rows, one a line, columns separated by `|`.
    func query(_ sql: String) throws -> [String] {
        let run = try Shell.capture(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", url, "-c", sql])
        try #require(run.status == 0, "psql \(sql): \(run.stderr)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    /// Every poster's stored counts, by id.
    func counts() throws -> [Int: Tally] {
        var result: [Int: Tally] = [:]
        for row in try query("SELECT id, good1, good2 FROM poster ORDER BY id") {
            let fields = row.split(separator: "|").compactMap { Int($0) }
            try #require(fields.count == 3, "bad row \(row)")
            result[fields[0]] = Tally(good1: fields[1], good2: fields[2])
        }
        return result
    }
}

/// Votes for each side of one poster.
struct Tally: Equatable, CustomStringConvertible {
    var good1 = 0
    var good2 = 0

    mutating func add(side: Int, times: Int) {
        if side == 1 { good1 += times } else { good2 += times }
    }

    var description: String { "\(good1):\(good2)" }
}

/// Two `tenbin serve` processes, A and B, on one fresh PostgreSQL database and one shared blob
/// folder (`--store DIR --database URL`), the way several machines run one board.
final class TwoServers {
    let database: SharedDatabase
    let folder: ScratchFolder
    /// The blob folder both servers use.
    let store: String
    let a: ServeProcess
    let b: ServeProcess

    /// Starts both servers with `arguments` (after `--database`).
    init(_ arguments: [String] = ["--no-rate-limit"]) throws {
        database = try SharedDatabase()
        folder = try ScratchFolder()
        store = folder.path + "/shared"  // not made yet: the first post makes it, as with SQLite
        a = try ServeProcess(["--database", database.url] + arguments, store: store)
        b = try ServeProcess(["--database", database.url] + arguments, store: store)
    }

    deinit {
        // Servers first, so the database is dropped with nobody reconnecting to it.
        for server in [a, b] where server.process.isRunning { _ = server.stop() }
    }

    var servers: [ServeProcess] { [a, b] }

    /// `tenbin check` over the shared database and folder: exit status and output.
    func check() throws -> TenbinRun {
        try Tenbin.run(["check", "--database", database.url], store: store)
    }
}

extension String {
    /// A PostgreSQL URL with its database name (the last path component) replaced.
    func replacingDatabase(with name: String) -> String {
        guard let slash = lastIndex(of: "/") else { return self + "/" + name }
        let query = self[slash...].firstIndex(of: "?")
        return String(self[...slash]) + name + (query.map { String(self[$0...]) } ?? "")
    }
}

/// Runs `body(index)` on `count` threads of their own (never on dispatch's or Swift
/// concurrency's few workers, which also run the tests) and waits for all of them.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    startThreads(count, body).wait()
}

/// Starts `body(index)` on `count` threads of their own; the group is left when all are done.
func startThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> DispatchGroup {
    let finished = DispatchGroup()
    for index in 0..<count {
        finished.enter()
        Thread {
            defer { finished.leave() }
            body(index)
        }.start()
    }
    return finished
}

extension HTTPConnection {
    /// Casts `times` votes for `side` of poster `id` on this keep-alive connection.
    func vote(_ id: Int, side: Int, times: Int = 1, headers: [(String, String)] = []) throws -> HTTPReply {
        try request(
            "POST", "/api/v1/posters/\(id)/votes", headers: [("Content-Type", "application/json")] + headers,
            body: Array("{\"side\": \(side), \"times\": \(times)}".utf8))
    }
}

extension ServeProcess {
    /// The value of one metric line (`name value`) on `/metrics`.
    func metric(_ name: String) throws -> Int? {
        let text = try request("GET", "/metrics").text
        return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Int($0.split(separator: " ")[1]) }
    }
}
