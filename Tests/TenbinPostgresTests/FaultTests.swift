import Dispatch
import Testing
import TenbinKit

@testable import TenbinPostgres

#if canImport(Glibc)
    import Glibc
#endif

/// PostgreSQL going away under load, and coming back. Serialized: one test restarts the
/// whole server, which every other PostgreSQL test in this suite would see.
@Suite(.enabled(if: TestPostgres.isAvailable), .serialized, .timeLimit(.minutes(3)))
struct FaultTests {
    @Test func votesDuringARestartFailAsUnavailableThenSucceedAndNoneIsLost() throws {
        let store = try PostgresStore(url: TestPostgres.freshDatabase(), poolSize: 4)
        let id = try store.insert([PostgresStoreTests.draft("hot")], createdAt: Timestamp(secondsSince1970: 1), encodingKey: "k") {}[0].id
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
                        _ = try store.vote(id: id, side: .first, times: 1)
                        tally.withLock { $0.ok += 1 }
                        if restarted.withLock({ $0 }) { afterRestart += 1 }
                    } catch let error as PostgresError where error.kind == .unavailable {
                        tally.withLock { $0.unavailable += 1 }
                        usleep(20_000)
                    } catch {
                        tally.withLock { $0.other.append("\(error)") }
                        return
                    }
                }
            }
        }
        try waitUntil { tally.withLock { $0.ok } >= 100 }
        try TestPostgres.restartServer()
        restarted.withLock { $0 = true }
        voters.wait()
        let final = try #require(try store.poster(id: id))
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

    @Test func theSharedListenerResyncsAfterItsConnectionIsTerminated() throws {
        let url = try TestPostgres.freshDatabase()
        let store = try PostgresStore(url: url, poolSize: 2)
        let listener = ChangeListener(target: store.target, retryMilliseconds: 50)
        let signals = Locked<[ChangeListener.Signal]>([])
        let subscription = try listener.subscribe { signal in signals.withLock { $0.append(signal) } }
        defer { subscription.cancel() }
        try waitUntil { signals.withLock { $0.contains(.resync) } }
        let id = try store.insert([PostgresStoreTests.draft("x")], createdAt: Timestamp(secondsSince1970: 1), encodingKey: "k") {}[0].id
        try waitUntil { signals.withLock { $0.contains(.changed([id])) } }
        _ = try store.pool.withConnection { connection in
            try connection.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' OR query = 'SELECT 1' AND pid <> pg_backend_pid()")
        }
        try waitUntil { signals.withLock { $0.filter { $0 == .resync }.count >= 2 } }
        _ = try store.vote(id: id, side: .second, times: 1)
        try waitUntil { signals.withLock { $0.filter { $0 == .changed([id]) }.count >= 2 } }
    }
}
