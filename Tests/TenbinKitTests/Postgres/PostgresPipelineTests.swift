import Testing

@testable import TenbinKit
@testable import TenbinPostgres

#if canImport(Glibc)
    import Glibc
#endif

/// A read's BEGIN travels with its first statement in one pipeline, and its COMMIT goes out
/// without waiting: the snapshot still covers every statement, and every way the pipeline or
/// the unanswered COMMIT can fail leaves the connection usable, or broken and replaced.
@Suite(.enabled(if: TestPostgres.isAvailable), .timeLimit(.minutes(10)))
struct PostgresPipelineTests {
    static let begin = PostgresStore.readBegin

    @Test func aReadSeesOneSnapshotFromItsFirstStatementWhetherPreparedOrNot() throws {
        let folder = try TemporaryStore()
        let url = try TestPostgres.freshDatabase()
        let store = try PostgresStore(url: url, poolSize: 1)
        let other = try PostgresStore(url: url, poolSize: 1, migrate: false)
        let board = Board(folder.configuration(), store: store, blobs: BlobStore(storeFolder: folder.path))
        let writer = Board(folder.configuration(), store: other, blobs: BlobStore(storeFolder: folder.path))
        _ = try board.quickPost("first")
        for round in 0..<3 {
            // The first statement prepared (count), then unprepared (blobRows).
            let counts = try store.read { reading -> [Int] in
                if round == 1 { _ = try reading.blobRows() }
                let before = try reading.count()
                _ = try writer.quickPost("meanwhile \(round)")
                return [before, try reading.count(), try reading.page(order: .new, after: nil, offset: 0, limit: 100).count]
            }
            #expect(counts[0] == counts[1] && counts[1] == counts[2], "round \(round): \(counts)")
            #expect(try board.count() == counts[0] + 1)
        }
    }

    @Test func aReadsCommitIsReadBeforeTheConnectionIsUsedAgainAndLeavesNoTransactionOpen() throws {
        let url = try TestPostgres.freshDatabase()
        let store = try PostgresStore(url: url, poolSize: 1)
        #expect(try store.read { try $0.count() } == 0)
        let pid = try store.pool.withConnection { connection in
            #expect(!connection.hasPendingCommit && !connection.isInTransaction)
            return try connection.query("SELECT pg_backend_pid()").int(0, 0)
        }
        // The connection goes back to the pool with its COMMIT unanswered, then is used directly.
        #expect(try store.read { try $0.count() } == 0)
        let settled = try store.pool.withConnection { try $0.query("SELECT 1").int(0, 0) }
        #expect(settled == 1)
        let admin = try Connection(ConnectionTarget(url))
        let state = try admin.query("SELECT state FROM pg_stat_activity WHERE pid = \(pid)")
        #expect(state.count == 1 && state.text(0, 0) == "idle")
        // A read that runs no statement begins nothing, and the next read still begins its own.
        #expect(try store.read { _ in 7 } == 7)
        #expect(try store.pool.withConnection { !$0.isInTransaction })
        #expect(try store.read { try $0.count() } == 0)
    }

    @Test func aFailedFirstStatementLeavesTheConnectionUsableOutOfPipelineMode() throws {
        let connection = try Connection(ConnectionTarget(TestPostgres.freshDatabase()))
        let error = try #require(throws: PostgresError.self) {
            try connection.begin(Self.begin, then: "SELECT 1 / \(0)::int")
        }
        #expect(error.sqlState == "22012")
        #expect(!connection.isBroken && connection.isInTransaction)
        try connection.execute("ROLLBACK")
        #expect(!connection.isInTransaction)
        // Out of pipeline mode: a plain query (not allowed in a pipeline) runs.
        try connection.execute("SELECT 1; SELECT 2")
        #expect(try connection.begin(Self.begin, then: "SELECT 10 / \(5)::int").int(0, 0) == 2)
        try connection.execute("COMMIT")
    }

    @Test func aBeginThatFailsBeginsNothingAndRunsNothing() throws {
        let connection = try Connection(ConnectionTarget(TestPostgres.freshDatabase()))
        try connection.execute("CREATE TABLE t (n int); INSERT INTO t VALUES (1)")
        let error = try #require(throws: PostgresError.self) {
            try connection.begin("BEGIN ISOLATION LEVEL NONSENSE", then: "UPDATE t SET n = n + 1 RETURNING n")
        }
        #expect(error.sqlState == "42601")
        #expect(!connection.isBroken && !connection.isInTransaction)
        #expect(try connection.query("SELECT n FROM t").int(0, 0) == 1)
    }

    @Test func aSessionThatLostOrAlreadyHoldsTheStatementIsBegunAgainTheSlowWay() throws {
        let url = try TestPostgres.freshDatabase()
        func double(_ number: Int) -> PostgresQuery { "SELECT \(number)::bigint * 2" }
        let sql = double(0).sql
        // Lost: this connection prepared it, then the session dropped it (a pooler, DEALLOCATE).
        let connection = try Connection(ConnectionTarget(url))
        #expect(try connection.queryPrepared(double(1)).int(0, 0) == 2)
        try connection.execute("DEALLOCATE ALL")
        #expect(try connection.begin(Self.begin, then: double(4)).int(0, 0) == 8)
        #expect(connection.isInTransaction)
        try connection.execute("COMMIT")
        let named: PostgresQuery = "SELECT count(*) FROM pg_prepared_statements WHERE name = \(Connection.statementName(sql))"
        #expect(try connection.query(named).int(0, 0) == 1)
        // Already held: the session has the name this connection never prepared.
        let other = try Connection(ConnectionTarget(url))
        try other.execute("PREPARE \(Connection.statementName(sql))(bigint) AS SELECT $1 * 2")
        #expect(try other.begin(Self.begin, then: double(5)).int(0, 0) == 10)
        try other.execute("COMMIT")
        // Known now on both: the next begin sends no Prepare and runs in one round trip.
        #expect(try other.begin(Self.begin, then: double(6)).int(0, 0) == 12)
        try other.execute("COMMIT")
    }

    @Test func statementsPipelinedWithTheBeginAnswerInOrderFromItsSnapshotEachPreparedOnce() throws {
        let url = try TestPostgres.freshDatabase()
        let connection = try Connection(ConnectionTarget(url))
        let writer = try Connection(ConnectionTarget(url))
        try writer.execute("CREATE TABLE t (n int); INSERT INTO t VALUES (1)")
        func times(_ number: Int) -> PostgresQuery { "SELECT \(number)::bigint * 3" }
        let count: PostgresQuery = "SELECT count(*)::bigint FROM t"
        try connection.deferBegin(Self.begin)
        // The same statement twice (prepared once, run twice) and one reading the table.
        let first = try connection.queryPrepared(pipelined: [times(1), count, times(2)])
        #expect(try first.map { try $0.int(0, 0) } == [3, 1, 6])
        #expect(connection.isInTransaction)
        try writer.execute("INSERT INTO t VALUES (2)")
        // Inside the transaction: its snapshot, and every statement known prepared now.
        func plusOne(_ number: Int) -> PostgresQuery { "SELECT \(number)::bigint + 1" }
        let second = try connection.queryPrepared(pipelined: [count, times(4), plusOne(7)])
        #expect(try second.map { try $0.int(0, 0) } == [1, 12, 8])
        // The one prepared in a pipeline without a BEGIN is known too: not prepared again.
        #expect(try connection.queryPrepared(pipelined: [plusOne(8)]).map { try $0.int(0, 0) } == [9])
        try connection.execute("COMMIT")
        // A session that lost them (DEALLOCATE) is begun again the slow way.
        try connection.execute("DEALLOCATE ALL")
        try connection.deferBegin(Self.begin)
        let third = try connection.queryPrepared(pipelined: [count, times(5)])
        #expect(try third.map { try $0.int(0, 0) } == [2, 15])
        try connection.execute("COMMIT")
        // A failure fails the transaction and leaves the connection out of pipeline mode.
        try connection.deferBegin(Self.begin)
        #expect(throws: PostgresError.self) { try connection.queryPrepared(pipelined: [count, "SELECT 1 / \(0)::int"]) }
        try connection.execute("ROLLBACK")
        try connection.execute("SELECT 1; SELECT 2")
    }

    @Test func aReadThatThrowsRollsBackAndTheConnectionServesTheNextRead() throws {
        let folder = try TemporaryStore()
        let store = try PostgresStore(url: try TestPostgres.freshDatabase(), poolSize: 1)
        let board = Board(folder.configuration(), store: store, blobs: BlobStore(storeFolder: folder.path))
        _ = try board.quickPost("東京")
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.read { reading -> Int in
                _ = try reading.count()
                throw Stop()
            }
        }
        #expect(throws: Stop.self) { try store.read { _ -> Int in throw Stop() } }
        #expect(try store.pool.withConnection { !$0.isInTransaction })
        #expect(try board.search(query: "東京").count == 1)
    }

    @Test func aConnectionTerminatedWithItsCommitUnansweredIsReplaced() async throws {
        try await offThePool { try Self.aConnectionTerminatedWithItsCommitUnansweredIsReplacedBody() }
    }

    static func aConnectionTerminatedWithItsCommitUnansweredIsReplacedBody() throws {
        let url = try TestPostgres.freshDatabase()
        let store = try PostgresStore(url: url, poolSize: 1)
        let admin = try Connection(ConnectionTarget(url))
        let pid = try backendPID(store)
        // The read below leaves its COMMIT unanswered on the pool's one connection; the server
        // then ends that backend, which the next borrower finds out when it reads the answer.
        #expect(try store.read { try $0.count() } == 0)
        #expect(try admin.query("SELECT pg_terminate_backend(\(pid))").bool(0, 0))
        var answered = false
        for _ in 0..<1_000 where !answered {  // up to 20 s: a bound for a loaded machine, not a speed
            usleep(20_000)  // the backend's goodbye reaches the socket asynchronously
            answered = (try? store.read { try $0.count() }) == 0
        }
        #expect(answered)
        #expect(try backendPID(store) != pid)
        // Broken in the middle of a pipeline: the error says the database is unavailable.
        let connection = try Connection(ConnectionTarget(url))
        let doomed = try connection.query("SELECT pg_backend_pid()").int(0, 0)
        #expect(try admin.query("SELECT pg_terminate_backend(\(doomed))").bool(0, 0))
        // Once the backend is gone, its socket is closed: the next round trip finds out.
        var gone = false
        for _ in 0..<1_000 where !gone {  // up to 20 s: a bound for a loaded machine, not a speed
            gone = try admin.query("SELECT count(*) FROM pg_stat_activity WHERE pid = \(doomed)").int(0, 0) == 0
            if !gone { usleep(20_000) }
        }
        #expect(gone)
        let error = try #require(throws: PostgresError.self) { try connection.begin(Self.begin, then: "SELECT 1") }
        #expect(error.kind == .unavailable)
        #expect(connection.isBroken)
    }

    static func backendPID(_ store: PostgresStore) throws -> Int {
        try store.pool.withConnection { try $0.query("SELECT pg_backend_pid()").int(0, 0) }
    }
}
