import Dispatch
import Foundation
import TestProcesses
import Testing

@testable import TenbinKit
@testable import TenbinPostgres

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.enabled(if: TestPostgres.isAvailable), .timeLimit(.minutes(10)))
struct PostgresConnectionTests {
    @Test func parametersRoundTripEveryTypeTheStoreUses() throws {
        let connection = try Connection(ConnectionTarget(TestPostgres.freshDatabase()))
        let text = "東京 \"quoted\" back\\slash ＃tag"
        let words = PostgresQuery.Shared(["a", "b\"c\\d", "e"])
        let rows = try connection.query(
            """
            SELECT \(text)::text, \(Int64(-9_000_000_000))::bigint, \([UInt8]([0, 1, 0xFF, 0x41]))::bytea, \
            array_length(\(words)::text[], 1), (\(words)::text[])[2], \(String?.none)::text IS NULL, (\([Int64]([1, 2, 3]))::bigint[])[3]
            """)
        #expect(rows.count == 1)
        #expect(rows.text(0, 0) == text)
        #expect(try rows.int64(0, 1) == -9_000_000_000)
        #expect(rows.bytes(0, 2) == [0, 1, 0xFF, 0x41])
        #expect(try rows.int(0, 3) == 3)
        #expect(rows.text(0, 4) == "b\"c\\d")
        #expect(try rows.bool(0, 5))
        #expect(try rows.int(0, 6) == 3)
    }

    /// Integers and booleans decode or throw, naming the column and the row: NULL is never 0 or
    /// false, and text that is not a number is never read as one.
    @Test func integersAndBooleansDecodeOrThrowNamingColumnAndRow() throws {
        let connection = try Connection(ConnectionTarget(TestPostgres.freshDatabase()))
        let edges = try connection.query("SELECT '-9223372036854775808'::bigint, '9223372036854775807'::bigint, 0::integer, false")
        #expect(try edges.int64(0, 0) == Int64.min && edges.int64(0, 1) == Int64.max && edges.int(0, 2) == 0)
        #expect(try edges.bool(0, 3) == false)
        for binary in [false, true] {
            let rows = try connection.query(
                "SELECT v AS votes, NULL::boolean AS hidden FROM (VALUES (1::bigint), (NULL)) t(v) ORDER BY v NULLS LAST",
                binary: binary)
            #expect(try rows.int64(0, 0) == 1)
            #expect(throws: RowDecodingError(column: "votes", row: 1, expected: "an integer", found: "NULL")) { try rows.int64(1, 0) }
            #expect(throws: RowDecodingError(column: "hidden", row: 0, expected: "a boolean", found: "NULL")) { try rows.bool(0, 1) }
        }
        let words = try connection.query("SELECT '12abc' AS count, '99999999999999999999' AS big, '' AS empty, 'yes' AS flag")
        #expect(throws: RowDecodingError(column: "count", row: 0, expected: "an integer", found: "'12abc'")) { try words.int64(0, 0) }
        #expect(throws: RowDecodingError.self) { try words.int64(0, 1) }
        #expect(throws: RowDecodingError.self) { try words.int(0, 2) }
        let error = try #require(throws: RowDecodingError.self) { try words.bool(0, 3) }
        #expect(error.description == "the database answered 'yes' in column 'flag' of row 1, where tenbin expects a boolean")
        #expect(error.kind == .internal)
    }

    @Test func aPreparedStatementIsPreparedOnceAndStillRunsWhenItsSessionLostIt() throws {
        let connection = try Connection(ConnectionTarget(TestPostgres.freshDatabase()))
        func plusOne(_ number: Int) -> PostgresQuery { "SELECT \(number)::bigint + 1" }
        let sql = plusOne(0).sql
        let name = Connection.statementName(sql)
        #expect(try connection.queryPrepared(plusOne(1)).int(0, 0) == 2)
        #expect(try connection.queryPrepared(plusOne(41)).int(0, 0) == 42)
        let named: PostgresQuery = "SELECT count(*) FROM pg_prepared_statements WHERE name = \(name)"
        #expect(try connection.query(named).int(0, 0) == 1)
        let plans = try connection.query("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = \(name)")
        #expect(try plans.int(0, 0) >= 1 && plans.int(0, 1) == 0, "planned once, generically")
        // A pooler that moved the session (or DEALLOCATE): the statement runs unprepared, then
        // is prepared again.
        try connection.execute("DEALLOCATE ALL")
        #expect(try connection.queryPrepared(plusOne(2)).int(0, 0) == 3)
        #expect(try connection.queryPrepared(plusOne(3)).int(0, 0) == 4)
        #expect(try connection.query(named).int(0, 0) == 1)
        // A session that already holds the name (a pooler's shared session) holds the same text.
        let other = try Connection(connection.target)
        try other.execute("PREPARE \(name)(bigint) AS \(sql.replacingOccurrences(of: "$1::bigint", with: "$1"))")
        #expect(try other.queryPrepared(plusOne(9)).int(0, 0) == 10)
        #expect(Connection.statementName(sql) != Connection.statementName(sql + " "))
    }

    @Test func aFailedStatementSaysWhatTheServerSaidWithoutTheSQL() throws {
        let connection = try Connection(ConnectionTarget(TestPostgres.freshDatabase()))
        let error = try #require(throws: PostgresError.self) { try connection.query("SELECT * FROM no_such_table_here") }
        #expect(error.sqlState == "42P01")
        #expect(error.kind == .internal)
        #expect(!error.description.contains("SELECT"))
        #expect(error.description.contains("no_such_table_here"))
        // The connection is still usable after a failed statement.
        #expect(try connection.query("SELECT 1").int(0, 0) == 1)
    }

    @Test func aMalformedConnectionStringFailsWithoutShowingThePassword() throws {
        let error = try #require(throws: PostgresError.self) {
            try ConnectionTarget("postgresql://alice:s3cretpw@host/db?nosuchoption=s3cretpw")
        }
        #expect(error.kind == .invalidInput)
        #expect(!error.description.contains("s3cretpw"))
        let keywords = try #require(throws: PostgresError.self) { try ConnectionTarget("password=s3cretpw nonsense") }
        #expect(!keywords.description.contains("s3cretpw"))
    }

    @Test func aWrongPasswordIsRefusedWithoutShowingIt() async throws {
        try await offThePool { try Self.aWrongPasswordIsRefusedWithoutShowingItBody() }
    }

    static func aWrongPasswordIsRefusedWithoutShowingItBody() throws {
        let admin = try Connection(ConnectionTarget(try #require(TestPostgres.serverURL)))
        _ = try? admin.execute("CREATE ROLE tenbin_password LOGIN PASSWORD 'right-horse'")
        let port = try #require(TestPostgres.serverURL?.split(separator: ":").last?.split(separator: "/").first)
        let wrong = try ConnectionTarget("postgresql://tenbin_password:wrong-battery@127.0.0.1:\(port)/postgres")
        #expect(wrong.description == "postgres://tenbin_password@127.0.0.1:\(port)/postgres")
        let error = try #require(throws: PostgresError.self) { try Connection(wrong) }
        #expect(error.kind == .unavailable)
        #expect(!error.description.contains("wrong-battery"))
        #expect(error.description.contains("tenbin_password"))
        // The right password in a password file, not in the string.
        let file = "/tmp/tenbin-pgpass-\(getpid())"
        try #require(system("umask 077; echo '127.0.0.1:\(port):*:tenbin_password:right-horse' > \(file)") == 0)
        defer { unlink(file) }
        let viaFile = try ConnectionTarget("host=127.0.0.1 port=\(port) dbname=postgres user=tenbin_password passfile=\(file)")
        #expect(try Connection(viaFile).query("SELECT current_user").text(0, 0) == "tenbin_password")
    }

    @Test func thePoolReplacesAConnectionTheServerTerminated() async throws {
        try await offThePool { try Self.thePoolReplacesAConnectionTheServerTerminatedBody() }
    }

    static func thePoolReplacesAConnectionTheServerTerminatedBody() throws {
        let url = try TestPostgres.freshDatabase()
        let pool = ConnectionPool(target: try ConnectionTarget(url), size: 2)
        let pid = try pool.withConnection { try $0.query("SELECT pg_backend_pid()").int(0, 0) }
        let admin = try Connection(ConnectionTarget(url))
        #expect(try admin.query("SELECT pg_terminate_backend(\(pid))").bool(0, 0))
        // The terminated connection is found dead while idle and replaced: no request fails.
        var newPID = 0
        for _ in 0..<1_000 where newPID == 0 {  // up to 20 s: a bound for a loaded machine, not a speed
            usleep(20_000)  // the backend's goodbye reaches the socket asynchronously
            newPID = try pool.withConnection { try $0.query("SELECT pg_backend_pid()").int(0, 0) }
            if newPID == pid { newPID = 0 }
        }
        #expect(newPID != 0 && newPID != pid)
    }

    @Test func theListenerHearsNotificationsAndComesBackAfterTermination() async throws {
        try await offThePool { try Self.theListenerHearsNotificationsAndComesBackAfterTerminationBody() }
    }

    static func theListenerHearsNotificationsAndComesBackAfterTerminationBody() throws {
        let url = try TestPostgres.freshDatabase()
        let events = Locked<[NotificationListener.Event]>([])
        let listener = try NotificationListener(target: ConnectionTarget(url), channel: "tenbin_test", retryMilliseconds: 50) { event in
            events.withLock { $0.append(event) }
        }
        defer { listener.stop() }
        try waitUntil("the listener to listen") { events.withLock { $0.contains(.listening) } }
        let sender = try Connection(ConnectionTarget(url))
        try sender.query("SELECT pg_notify('tenbin_test', 'one')")
        try waitUntil("notification one") { events.withLock { $0.contains(.notification("one")) } }
        try sender.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' OR query = 'SELECT 1' AND pid <> pg_backend_pid()"
        )
        try waitUntil("the listener to listen again") { events.withLock { $0.filter { $0 == .listening }.count == 2 } }
        try sender.query("SELECT pg_notify('tenbin_test', 'two')")
        try waitUntil("notification two") { events.withLock { $0.contains(.notification("two")) } }
        #expect(events.withLock { $0.contains { if case .lost = $0 { true } else { false } } })
    }

    /// A statement that is its process's only one in flight, after a few others sent alone,
    /// reads its answer as it arrives (``AnswerWaiting``), for at most the limit; one sent
    /// while another waits sleeps, so does the first one after that, and a limit of 0 never
    /// spins. Each connection here waits by its own rules, so the other tests' statements do
    /// not count.
    @Test func aStatementAloneReadsItsAnswerAsItArrivesForAtMostTheLimitAndNeverBesideAnother() throws {
        let url = try TestPostgres.freshDatabase()
        func counts(_ waiting: AnswerWaiting) -> (spins: Int, answered: Int) {
            (waiting.spins.load(ordering: .relaxed), waiting.answeredSpinning.load(ordering: .relaxed))
        }
        /// A connection that waits by `waiting`, once it has sent enough statements alone to spin.
        func calmConnection(_ waiting: AnswerWaiting) throws -> Connection {
            let connection = try Connection(ConnectionTarget(url), waiting: waiting)
            for _ in 0..<AnswerWaiting.calmSends { try connection.execute("SELECT 1") }
            return connection
        }
        // A limit far above a statement's time: the answer comes while the thread reads.
        let patient = AnswerWaiting(limitNanoseconds: 30_000_000_000)
        let alone = try calmConnection(patient)
        var before = counts(patient)
        #expect(try alone.query("SELECT 7").int(0, 0) == 7)
        #expect(counts(patient) == (before.spins + 1, before.answered + 1))

        // Beside a statement in flight on another connection that waits the same way: asleep.
        let observer = try Connection(ConnectionTarget(url), waiting: AnswerWaiting(limitNanoseconds: 0))
        let sleeping = Locked<Result<Int, any Error>?>(nil)
        let done = DispatchGroup()
        before = counts(patient)
        DispatchQueue.global().async(group: done) {
            let result = Result { try Connection(ConnectionTarget(url), waiting: patient).query("SELECT 1 FROM pg_sleep(2)").int(0, 0) }
            sleeping.withLock { $0 = result }
        }
        try waitUntil("the sleeping statement to run") {
            try observer.query("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT 1 FROM pg_sleep%' AND state = 'active'")
                .int(0, 0) == 1
        }
        // Its connection's set-up statements ran alone and spun; count from the sleep on.
        let duringSleep = counts(patient)
        #expect(try alone.query("SELECT 8").int(0, 0) == 8)
        done.wait()
        #expect(try sleeping.withLock { $0 }?.get() == 1)
        #expect(counts(patient).spins == duringSleep.spins, "a statement beside another in flight spun")
        #expect(counts(patient).spins > before.spins, "the sleeping statement, alone when sent, did not spin")
        // The first statement alone after that lull does not spin yet; enough of them do.
        #expect(try alone.query("SELECT 9").int(0, 0) == 9)
        #expect(counts(patient).spins == duringSleep.spins, "a statement spun right after another was in flight")
        for _ in 0..<AnswerWaiting.calmSends { try alone.execute("SELECT 1") }
        #expect(counts(patient).spins > duringSleep.spins)

        // A limit shorter than the statement: the thread stops reading before the answer comes.
        let brief = AnswerWaiting(limitNanoseconds: 1_000_000)
        let hurried = try calmConnection(brief)
        before = counts(brief)
        #expect(try hurried.query("SELECT 1 FROM pg_sleep(0.3)").int(0, 0) == 1)
        #expect(counts(brief) == (before.spins + 1, before.answered))

        // A limit of 0: never.
        let never = AnswerWaiting(limitNanoseconds: 0)
        #expect(try calmConnection(never).queryPrepared("SELECT 9").int(0, 0) == 9)
        #expect(counts(never) == (0, 0))
    }

    /// A thread that may run on one processor only does not spin by default: the answer may
    /// need that processor. Checked on a thread of its own, pinned by `taskset` to its first
    /// allowed processor and given its mask back.
    @Test func aThreadOnOneProcessorNeverSpinsByDefault() throws {
        let outcome = Locked<Result<(before: Int, pinned: Int, limit: Int, restored: Int), any Error>?>(nil)
        let thread = Thread {
            let result = Result { () throws -> (before: Int, pinned: Int, limit: Int, restored: Int) in
                // /proc/thread-self links to /proc/PID/task/TID.
                let link = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")
                let tid = link.split(separator: "/").last.map(String.init) ?? ""
                func taskset(_ arguments: [String]) throws -> String {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
                    process.arguments = arguments
                    let output = Pipe()
                    process.standardOutput = output
                    try process.start()
                    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    process.waitForExit()
                    return text
                }
                // "pid N's current affinity list: 0,1" or "0-3".
                let current = try taskset(["-p", "-c", tid])
                let allowed = current.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                let first = String(allowed.prefix { $0.isNumber })
                let before = Machine.activeCores
                _ = try taskset(["-p", "-c", first, tid])
                let pinned = Machine.activeCores
                let limit = AnswerWaiting.defaultLimit
                _ = try taskset(["-p", "-c", allowed, tid])
                return (before: before, pinned: pinned, limit: limit, restored: Machine.activeCores)
            }
            outcome.withLock { $0 = result }
        }
        thread.start()
        try waitUntil("the pinned thread's answer") { outcome.withLock { $0 } != nil }
        let answer = try #require(try outcome.withLock { $0 }?.get())
        #expect(answer.pinned == 1)
        if getenv("TENBIN_POSTGRES_SPIN") == nil {
            #expect(answer.limit == 0)
        }
        #expect(answer.restored == answer.before)
    }
}
