import Dispatch
import Testing

@testable import TenbinKit
@testable import TenbinPostgres

#if canImport(Glibc)
    import Glibc
#endif

/// PostgreSQL going away under load, and coming back. The restart test has a server of its own.
@Suite(.enabled(if: TestPostgres.isAvailable), .serialized, .timeLimit(.minutes(10)))
struct PostgresFaultTests {
    static func board(_ folder: TemporaryStore, url: String) throws -> Board {
        Board(folder.configuration(), store: try PostgresStore(url: url, poolSize: 4), blobs: BlobStore(storeFolder: folder.path))
    }

    @Test func votesDuringARestartFailAsUnavailableThenSucceedAndNoneIsLost() async throws {
        // Blocking work (voters, the restart, waits) off Swift's cooperative pool, which other
        // suites' tasks need meanwhile.
        try await offThePool { try Self.restartUnderLoad() }
    }

    static func restartUnderLoad() throws {
        let server = try TestPostgres.PrivateServer()
        let folder = try TemporaryStore()
        let board = try board(folder, url: server.url)
        let id = try board.quickPost("hot").id
        let tally = Locked((ok: 0, unavailable: 0, other: [String]()))
        let restarted = Locked(false)
        // Blocking voters on their own threads: the cooperative pool has one thread a core.
        let voters = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: voters) {
                // Each voter votes until the restart is over and then 50 more times.
                var afterRestart = 0
                while afterRestart < 50 {
                    do {
                        _ = try board.vote(id: id, side: .first)
                        tally.withLock { $0.ok += 1 }
                        if restarted.withLock({ $0 }) { afterRestart += 1 }
                    } catch let error where ErrorKind.of(error) == .unavailable {
                        tally.withLock { $0.unavailable += 1 }
                        usleep(20_000)
                    } catch {
                        tally.withLock { $0.other.append("\(error)") }
                        return
                    }
                }
            }
        }
        try waitUntil("100 answered votes") { tally.withLock { $0.ok } >= 100 }
        try server.restart()
        restarted.withLock { $0 = true }
        voters.wait()
        let final = try board.poster(id: id)
        let counts = tally.withLock { $0 }
        #expect(counts.other.isEmpty)
        // Every vote answered as done is counted; a vote whose answer was lost with the
        // connection may or may not have committed (its caller saw "unavailable").
        #expect(final.good1 >= counts.ok)
        #expect(final.good1 <= counts.ok + counts.unavailable)
        #expect(counts.ok >= 300)
        // The restart landed while voters were voting.
        #expect(counts.unavailable > 0)
    }

    @Test func aFeedRecoversWhenItsListeningConnectionIsTerminated() async throws {
        let url = try TestPostgres.freshDatabase()
        let folder = try TemporaryStore()
        let watcher = try Self.board(folder, url: url)
        let voter = try Self.board(folder, url: url)
        let poster = try voter.quickPost("watched")
        let recorder = LiveRecorder()
        let watching = Task {
            for try await update in try watcher.observe(Feed(order: .new, limit: 5)) { recorder.record(update) }
        }
        defer { watching.cancel() }
        await waitUntil("the feed's snapshot", pause: .milliseconds(10)) { recorder.delivered.count == 1 }
        _ = try voter.vote(id: poster.id, side: .first)
        await waitUntil("the first vote's change", pause: .milliseconds(10)) { recorder.delivered.count == 2 }
        // Cut the listener; a vote while it reconnects arrives as one diff after.
        let admin = try Connection(ConnectionTarget(url))
        try admin.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'"
        )
        _ = try voter.vote(id: poster.id, side: .second, times: 3)
        await waitUntil("the vote cast while the listener reconnected", pause: .milliseconds(10)) {
            (try? watcher.posters().first?.good2) == 3 && recorder.delivered.last.map(Self.good2) == 3
        }
    }

    static func good2(_ update: FeedUpdate) -> Int? {
        switch update {
        case .snapshot(let posters): posters.first?.good2
        case .changes(let changes):
            changes.compactMap { change -> Int? in
                if case .modified(let poster, _, _) = change { return poster.good2 }
                return nil
            }.last
        }
    }
}

/// Runs blocking `body` on a Dispatch thread, so a test that waits on processes, sockets or
/// sleeps does not hold one of the cooperative pool's few threads.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}
