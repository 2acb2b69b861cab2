import Testing

@testable import TenbinKit
@testable import TenbinPostgres

/// Reads of one statement (a page, a poster, the count) run outside any transaction through
/// statements prepared once per connection; the contract suite checks what they answer.
@Suite(.enabled(if: TestPostgres.isAvailable), .timeLimit(.minutes(10)))
struct PostgresReadTests {
    @Test func aPageIsOnePreparedStatementPlannedOnceAndAnswersAsAReadDoes() throws {
        let folder = try TemporaryStore()
        let url = try TestPostgres.freshDatabase()
        let store = try PostgresStore(url: url, poolSize: 1)
        let board = Board(folder.configuration(), store: store, blobs: BlobStore(storeFolder: folder.path))
        for number in 0..<5 { _ = try board.quickPost("poster \(number)", hashtags: ["tag\(number)"]) }
        let viaTransaction = try store.read { try $0.page(order: .new, after: nil, offset: 0, limit: 3) }
        for _ in 0..<3 {
            #expect(try board.posters(order: .new, limit: 3) == viaTransaction)
        }
        #expect(try board.posters(order: .new, limit: 3, offset: 1) == Array(try board.posters(order: .new, limit: 4).dropFirst()))
        #expect(try board.posters(order: .new, limit: 3).first?.hashtags == ["tag4"])
        let newest = try #require(viaTransaction.first)
        #expect(try board.poster(id: newest.id) == newest)
        #expect(try board.count() == 5)
        // The pool's one connection holds each page statement once, planned generically: the
        // board's (the hidden posters left out in it) as the read's.
        let statements = try store.pool.withConnection { connection in
            try connection.query(
                "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%NOT p.hidden%LIMIT 3'")
        }
        #expect(statements.count == 1)
        #expect(try statements.int(0, 1) >= 3 && statements.int(0, 2) == 0)
    }

    @Test func aSingleReadThatRunsASecondStatementFailsAndLeavesTheConnectionUsable() throws {
        let folder = try TemporaryStore()
        let store = try PostgresStore(url: try TestPostgres.freshDatabase(), poolSize: 1)
        let board = Board(folder.configuration(), store: store, blobs: BlobStore(storeFolder: folder.path))
        _ = try board.quickPost("one")
        let error = try #require(throws: PostgresError.self) {
            try store.readSingle { reading in
                _ = try reading.count()
                return try reading.count()
            }
        }
        #expect(ErrorKind.of(error) == .internal)
        #expect(try board.count() == 1)
        #expect(try board.search(query: "one").count == 1)
    }

    @Test func aSearchPreparesItsPosterReadInsideItsTransactionAndSurvivesASessionThatLostIt() throws {
        let folder = try TemporaryStore()
        let store = try PostgresStore(url: try TestPostgres.freshDatabase(), poolSize: 1)
        let board = Board(folder.configuration(), store: store, blobs: BlobStore(storeFolder: folder.path))
        // A word of three characters: candidates rechecked, so the posters are a second
        // statement of the read (words of 1–2 characters are one statement, outside any).
        for number in 0..<5 { _ = try board.quickPost("東京タワー \(number)") }
        let expected = try board.scanSearchIDs(query: "東京タ", limit: 20)
        #expect(try board.search(query: "東京タ").map(\.id) == expected)
        let sql = PostgresStore.posterColumns + " WHERE p.id = ANY($1::bigint[])"
        let count: PostgresQuery = "SELECT count(*) FROM pg_prepared_statements WHERE name = \(Connection.statementName(sql))"
        #expect(try store.pool.withConnection { try $0.query(count).int(0, 0) } == 1)
        // The session lost every prepared statement (a pooler moved it, or DEALLOCATE): the next
        // read's transaction learns so when it begins, and prepares again.
        try store.pool.withConnection { try $0.execute("DEALLOCATE ALL") }
        #expect(try board.search(query: "東京タ").map(\.id) == expected)
        #expect(try board.posters(order: .new, limit: 2).count == 2)
        #expect(try store.pool.withConnection { try $0.query(count).int(0, 0) } == 1)
        // A search of shorter words is one statement outside any transaction: lost, it is
        // prepared again.
        #expect(try board.search(query: "東京").map(\.id) == expected)
        try store.pool.withConnection { try $0.execute("DEALLOCATE ALL") }
        #expect(try board.search(query: "東京").map(\.id) == expected)
    }

    @Test func everyStatementOfTheSessionIsPlannedGenericallyInsideAReadsTransactionToo() throws {
        let connection = try Connection(ConnectionTarget(TestPostgres.freshDatabase()))
        let mode: PostgresQuery = "SELECT current_setting('plan_cache_mode')"
        #expect(try connection.query(mode).text(0, 0) == "force_generic_plan")
        #expect(try connection.queryPrepared("SELECT \(1)::bigint").int(0, 0) == 1)
        try connection.begin("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        // Inside the transaction the session's statements are known: a prepared one runs
        // without being prepared again, and planning stays generic.
        #expect(try connection.queryPrepared("SELECT \(2)::bigint").int(0, 0) == 2)
        #expect(try connection.queryPrepared("SELECT \(2)::bigint + 1").int(0, 0) == 3)
        #expect(try connection.query(mode).text(0, 0) == "force_generic_plan")
        try connection.execute("COMMIT")
        let plans = try connection.query("SELECT sum(generic_plans), sum(custom_plans) FROM pg_prepared_statements")
        #expect(try plans.int(0, 0) == 3 && plans.int(0, 1) == 0)
    }

    @Test func noStatementOfTheSessionIsCompiledByJIT() throws {
        let connection = try Connection(ConnectionTarget(TestPostgres.freshDatabase()))
        #expect(try connection.query("SELECT current_setting('jit')").text(0, 0) == "off")
    }
}
