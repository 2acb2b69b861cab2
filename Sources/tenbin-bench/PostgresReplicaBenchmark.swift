import Foundation
import TenbinKit
import TenbinPostgres

/// `replicas` (and the end of `postgres`): pages and searches per second through a Board whose
/// store reads from a hot standby (`--replica`) against the same Board on the primary alone,
/// on the same database, in the same run. The standby is made by `scripts/postgres.sh standby`
/// from the server `make bench` starts (TENBIN_TEST_POSTGRES_DIR).
enum PostgresReplicaBenchmark {
    static let posters = 10_000
    static let readers = 8
    static let seconds = 2.0

    static func run(_ context: BenchContext) throws {
        guard let server = PostgresBenchmark.testServer() else { return }
        guard let primaryFolder = ProcessInfo.processInfo.environment["TENBIN_TEST_POSTGRES_DIR"], !primaryFolder.isEmpty else {
            print("!!! no TENBIN_TEST_POSTGRES_DIR (the server's folder): replica section skipped; run it with make bench !!!")
            return
        }
        let url = try PostgresBenchmark.freshDatabase(server, name: "tenbin_bench_replicas")
        let setup = try PostgresStore(url: url, poolSize: 1)
        _ = try PostgresBenchmark.insertPosters(setup, count: posters)
        setup.close()
        let standbyFolder = "\(context.scratch)/postgres-standby"
        let standby = try makeStandby(folder: standbyFolder, primaryFolder: primaryFolder)
        defer { _ = try? Shell.shell("'\(script)' stop '\(standbyFolder)'") }
        let standbyURL = replacingDatabase(in: standby, with: "tenbin_bench_replicas")
        let blobs = try context.freshFolder("postgres-replicas")

        let alone = try PostgresStore(url: url, poolSize: readers)
        let replicated = try PostgresStore(url: url, poolSize: readers, replicas: [standbyURL])
        try waitForRotation(replicated)
        var table = Table(
            "\(posters.formatted()) posters, \(readers) readers, 2 × \(Int(seconds)) s each", "primary alone", "primary + 1 standby",
            "ratio")
        let workloads: [(String, @Sendable (Board, Int) throws -> Void)] = [
            ("pages of 20, new (pages/s)", { board, round in _ = try board.posters(order: .new, limit: 20, offset: round % 200) }),
            ("pages of 20, popular (pages/s)", { board, round in _ = try board.posters(order: .popular, limit: 20, offset: round % 200) }),
            ("search \"tagN\", every tenth poster (searches/s)", { board, round in _ = try board.search(query: "tag\(round % 10)") }),
            ("search \"7\", 1 character (searches/s)", { board, _ in _ = try board.search(query: "7") }),
        ]
        let primaryBoard = Board(Board.Configuration(), store: alone, blobs: BlobStore(storeFolder: blobs))
        let replicaBoard = Board(Board.Configuration(), store: replicated, blobs: BlobStore(storeFolder: blobs))
        for (name, body) in workloads {
            // Alternated, twice each, so neither setup always runs first on a noisy machine.
            var primaryRate = 0.0
            var replicaRate = 0.0
            for _ in 0..<2 {
                primaryRate += try rate(primaryBoard, body) / 2
                replicaRate += try rate(replicaBoard, body) / 2
            }
            table.add(
                name, Format.number(primaryRate, digits: 0) + "/s", Format.number(replicaRate, digits: 0) + "/s",
                Format.ratio(replicaRate / primaryRate))
        }
        let standbyShare = replicated.replicaStates.first?.reads ?? 0
        alone.close()
        replicated.close()
        table.print()
        print(
            """

            Reads answered by the standby in the second column: \(standbyShare.formatted()) (the rest by the primary).
            Both servers share this machine's 2 cores with the readers, so the ratio says what a standby costs (its
            replay-position check, a second server's caches), not what it adds: with one core per server, the standby's
            reads would take nothing from the primary's core, which then serves only writes and votes.
            """)
    }

    /// Reads per second of `readers` threads running `body` for ``seconds``.
    static func rate(_ board: Board, readers: Int = readers, _ body: @escaping @Sendable (Board, Int) throws -> Void) throws -> Double {
        let stop = Locked(false)
        let count = Counter()
        let failure = Locked<String?>(nil)
        let group = DispatchGroup()
        for reader in 0..<readers {
            group.enter()
            Thread {
                defer { group.leave() }
                var round = reader
                while !stop.withLock({ $0 }) {
                    do {
                        try body(board, round)
                        count.add()
                    } catch {
                        failure.withLock { $0 = "\(error)" }
                        return
                    }
                    round += readers
                }
            }.start()
        }
        Thread.sleep(forTimeInterval: seconds)
        stop.withLock { $0 = true }
        group.wait()
        if let failure = failure.withLock({ $0 }) { throw BenchError("a read failed: \(failure)") }
        return Double(count.value) / seconds
    }

    /// scripts/postgres.sh, from the checkout `make bench` runs in.
    static var script: String { FileManager.default.currentDirectoryPath + "/scripts/postgres.sh" }

    /// A streaming hot standby of the server in `primaryFolder`, in `folder`; its URL.
    static func makeStandby(folder: String, primaryFolder: String) throws -> String {
        _ = try? Shell.shell("'\(script)' stop '\(folder)'")
        let made = try Shell.output(["/bin/sh", "-c", "'\(script)' standby '\(folder)' '\(primaryFolder)' 2>&1"])
        guard made.status == 0 else { throw BenchError("scripts/postgres.sh standby failed: \(made.text)") }
        return made.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `url` with its database name replaced.
    static func replacingDatabase(in url: String, with name: String) -> String {
        guard let slash = url.lastIndex(of: "/") else { return url }
        return String(url[...slash]) + name
    }

    /// Waits (at most 60 s) until the standby is in rotation.
    static func waitForRotation(_ store: PostgresStore) throws {
        let deadline = Date().addingTimeInterval(60)
        while store.replicaStates.first?.inRotation != true {
            guard Date() < deadline else { throw BenchError("the standby never came into rotation") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
