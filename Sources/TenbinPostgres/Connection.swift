import CLibPQ
import TenbinKit

#if canImport(Glibc)
    import Glibc
#endif

/// One libpq connection, the only owner of its handle (closed in `deinit`).
///
/// Not `Sendable`: libpq's connection must be used by one thread at a time. A ``ConnectionPool``
/// hands each connection to one borrower at a time; a ``NotificationListener`` owns its own.
package final class Connection {
    private let handle: OpaquePointer
    /// The name of each statement prepared on this connection (see ``queryPrepared(_:binary:)``).
    private var prepared: Set<String> = []
    /// The database this connection is to.
    package let target: ConnectionTarget
    /// On a hot standby, how far it had replayed the log when this connection last asked
    /// (``ReplicaSet``); -1 before it asks. A standby's restart ends its connections, so this
    /// stays a lower bound of what every later read on this one sees.
    var replayedAtLeast: Int64 = -1
    /// How this connection's thread waits for an answer: as every connection of the process
    /// does, unless a test gives it its own.
    let waiting: AnswerWaiting

    /// Seconds a connection attempt may take before it fails, unless the string sets its own.
    static let connectTimeoutSeconds = 10

    /// Connects to `target`; throws a ``PostgresError`` (kind `unavailable` when the server
    /// cannot be reached or refuses the login).
    package init(_ target: ConnectionTarget, waiting: AnswerWaiting = .process) throws {
        // Keywords are read in order and the expanded string (`dbname`) overrides the ones
        // before it, so the caller's own connect_timeout or application_name wins.
        let keywords = ["connect_timeout", "fallback_application_name", "dbname"]
        let values = [String(Self.connectTimeoutSeconds), "tenbin", target.conninfo]
        let connection = withCStrings(keywords) { keywordPointers in
            withCStrings(values) { valuePointers in PQconnectdbParams(keywordPointers, valuePointers, 1) }
        }
        guard let connection else {
            throw PostgresError(kind: .unavailable, sqlState: nil, message: "out of memory", target: target.description)
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection)).trimmingCharacters(in: " \n")
            // A failed connection still holds memory, freed before throwing.
            PQfinish(connection)
            throw PostgresError(
                kind: .unavailable, sqlState: "08001", message: ConnectionTarget.scrub(message, of: target.conninfo),
                target: target.description)
        }
        // libpq prints a server's notices to stderr by default; library code never prints.
        _ = PQsetNoticeProcessor(connection, { _, _ in }, nil)  // returns the previous processor
        self.handle = connection
        self.target = target
        self.waiting = waiting
        // Every statement tenbin sends is written to have one good plan whatever its values
        // (limits written into the text, the search index's window tokens instead of a
        // planner's guess), so the session plans each once, generically: a prepared vote
        // batch would otherwise be planned again on every call (its custom plan looks cheaper
        // only because it knows the array's length), and planning a search took longer than
        // running it. Unnamed statements with parameters are planned generically too. A
        // server without the setting (before 12) just plans more.
        _ = try? execute("SET plan_cache_mode = force_generic_plan")
        // Debian's server compiles any statement whose estimated cost passes `jit_above_cost`,
        // on every execution: 25–80 ms for a walk that runs in under one, and tenbin's
        // statements are short ones (docs/postgres.md). Compiling never pays for them.
        _ = try? execute("SET jit = off")
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether the connection has failed (the server closed it, restarted, or the network broke).
    package var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    /// Whether a transaction is open (or failed and not yet rolled back) on this connection.
    package var isInTransaction: Bool { PQtransactionStatus(handle) != PQTRANS_IDLE }

    /// Whether an idle connection still looks usable, once the answer to a COMMIT sent
    /// without waiting is read: nothing else should arrive on it while no query is running,
    /// so anything readable (the server's goodbye on shutdown or
    /// `pg_terminate_backend`, or the end of the stream) means it is gone.
    func isIdleAndAlive() -> Bool {
        guard !isBroken, (try? settle()) != nil, !isInTransaction else { return false }
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 0
    }

    /// Runs one statement with its values bound (see ``PostgresQuery``) and returns its rows,
    /// in libpq's binary format when `binary` (see ``Rows``).
    @discardableResult
    package func query(_ query: PostgresQuery, binary: Bool = false) throws -> Rows {
        try settle()
        try beginDeferred()
        let result = withBinds(query.binds) { count, values, lengths, formats in
            exec { PQsendQueryParams(handle, query.sql, count, nil, values, lengths, formats, binary ? 1 : 0) }
        }
        return try check(result)
    }

    /// ``query(_:binary:)`` through a statement prepared once on this connection, so the server
    /// parses and plans it once (its generic plan), not on every call: for statements run
    /// many times a second (a vote batch), outside explicit transactions. The statement's
    /// name is a hash of its text, so behind a pooler that shares server sessions a name
    /// always means the same statement; where the prepared statement is missing after all
    /// (such a pooler moved the session), the statement runs unprepared.
    @discardableResult
    package func queryPrepared(_ query: PostgresQuery, binary: Bool = false) throws -> Rows {
        try settle()
        if let begin = deferredBegin {
            deferredBegin = nil
            return try self.begin(begin, then: query, binary: binary)
        }
        let sql = query.sql
        let name = Self.statementName(sql)
        if !prepared.contains(name) {
            do {
                _ = try check(exec { PQsendPrepare(handle, name, sql, Int32(query.binds.count), nil) })  // no rows: freed with them
            } catch let error as PostgresError where error.sqlState == "42P05" {
                // Already prepared in this server session under this name: the same text.
            }
            prepared.insert(name)
        }
        let result = withBinds(query.binds) { count, values, lengths, formats in
            exec { PQsendQueryPrepared(handle, name, count, values, lengths, formats, binary ? 1 : 0) }
        }
        do {
            return try check(result)
        } catch let error as PostgresError where error.sqlState == "26000" {
            prepared.remove(name)
            return try self.query(query, binary: binary)
        }
    }

    /// Begins a transaction with `begin` (`BEGIN …`) and, in the same round trip, learns
    /// which statements the server session holds prepared: inside the transaction the session
    /// cannot change (even behind a pooler), so ``queryPrepared(_:binary:)`` there neither
    /// prepares a statement twice nor runs one the session lacks, either of which would abort it.
    package func begin(_ begin: String) throws {
        try settle()
        let rows = try check(exec { PQsendQuery(handle, begin + "; SELECT name FROM pg_prepared_statements") })
        prepared = Set((0..<rows.count).map { rows.text($0, 0) })
    }

    /// ``begin(_:)`` and the transaction's first statement (``queryPrepared(_:binary:)``)
    /// in one round trip, through libpq's pipeline mode (``pipeline(begin:_:binary:)``).
    package func begin(_ begin: String, then query: PostgresQuery, binary: Bool = false) throws -> Rows {
        try settle()
        return try pipeline(begin: begin, [query], binary: binary)[0]
    }

    /// ``queryPrepared(_:binary:)`` of each of `queries` in one round trip, their rows in
    /// order: with a deferred BEGIN (``deferBegin(_:)``) first, as ``begin(_:then:binary:)``
    /// sends it, else inside the transaction already open (whose prepared statements this
    /// connection knows).
    package func queryPrepared(pipelined queries: [PostgresQuery], binary: Bool = false) throws -> [Rows] {
        try settle()
        let begin = deferredBegin
        deferredBegin = nil
        return try pipeline(begin: begin, queries, binary: binary)
    }

    /// `queries` through libpq's pipeline mode, one Sync, their rows in order: with `begin`,
    /// first BEGIN and the session's prepared statements (``preparedListSQL``); each statement
    /// prepared first if this connection has not prepared it.
    ///
    /// Whether to prepare is decided before the session's list arrives. When the session
    /// disagrees (a pooler moved it, or DEALLOCATE), a statement fails and aborts the
    /// transaction before anything was read from it: it is rolled back, begun again the slower
    /// way with the list learnt first, and the queries run one by one. Any other failure is
    /// thrown with the transaction failed (the caller rolls it back) or not begun, and the
    /// connection out of pipeline mode, usable or broken.
    private func pipeline(begin: String?, _ queries: [PostgresQuery], binary: Bool) throws -> [Rows] {
        waiting.begin()
        defer { waiting.end() }
        guard PQenterPipelineMode(handle) == 1 else { throw lastError }
        var sent = 0
        var preparing = prepared
        /// Queues one more command of the pipeline; false when libpq could not.
        func queue(_ command: () -> Int32) -> Bool {
            guard command() == 1 else { return false }
            sent += 1
            return true
        }
        /// Queues a prepared statement, prepared first where this connection has not.
        func queuePrepared(
            _ name: String, _ sql: String, count: Int32, _ values: [UnsafePointer<CChar>?], _ lengths: [Int32], _ formats: [Int32]
        ) -> Bool {
            (preparing.contains(name) || (queue { PQsendPrepare(handle, name, sql, count, nil) } && preparing.insert(name).inserted))
                && queue { PQsendQueryPrepared(handle, name, count, values, lengths, formats, binary ? 1 : 0) }
        }
        var queued = true
        var learnt: Int?
        if let begin {
            queued =
                queue { PQsendQueryParams(handle, begin, 0, nil, nil, nil, nil, 0) }
                && queuePrepared(Self.preparedListName, Self.preparedListSQL, count: 0, [], [], [])
            learnt = sent - 1  // the list's own result
        }
        var answers: [Int] = []
        for query in queries {
            queued =
                queued
                && withBinds(query.binds) { count, values, lengths, formats in
                    queuePrepared(Self.statementName(query.sql), query.sql, count: count, values, lengths, formats)
                }
            answers.append(sent - 1)
        }
        let synced = queued && PQpipelineSync(handle) == 1
        if synced { waiting.spinForAnswer(on: handle) }
        let results = collectPipeline(sent, synced: synced)
        let failure = results.lazy.compactMap(\.error).first
        guard queued && synced, results.count == sent else { throw failure ?? lastError }
        if failure == nil {
            var rows: [Rows] = []
            for index in answers {
                guard case .rows(let answer) = results[index] else { throw lastError }
                rows.append(answer)
            }
            if let learnt, case .rows(let names) = results[learnt] {
                // The list was read before the statements were prepared; every one of them ran,
                // so the session holds them now too.
                prepared = Set((0..<names.count).map { names.text($0, 0) } + queries.map { Self.statementName($0.sql) })
            } else {
                prepared = preparing
            }
            return rows
        }
        if let begin, let failure, failure.sqlState == "26000" || failure.sqlState == "42P05", isInTransaction, !isBroken {
            // The session's prepared statements were not what this connection thought:
            // nothing was read in the transaction yet, so it begins again, learning them first.
            try execute("ROLLBACK")
            try self.begin(begin)
            return try queries.map { try queryPrepared($0, binary: binary) }
        }
        throw failure ?? lastError
    }

    /// The statement listing the session's prepared statements, itself prepared (and so in
    /// its own list) by ``begin(_:then:binary:)``: parsing and planning it took longer than
    /// running it.
    static let preparedListSQL = "SELECT name FROM pg_prepared_statements"
    /// ``preparedListSQL``'s statement name.
    static let preparedListName = statementName(preparedListSQL)

    /// What one command of a pipeline gave.
    private enum PipelineResult {
        case rows(Rows)
        case failed(PostgresError)
        /// Not run: an earlier command of the pipeline failed.
        case aborted

        var error: PostgresError? {
            if case .failed(let error) = self { return error }
            return nil
        }
    }

    /// Reads the results of the `sent` commands of a pipeline and, when `synced`, its Sync,
    /// then leaves pipeline mode. Fewer results come back when the connection failed.
    private func collectPipeline(_ sent: Int, synced: Bool) -> [PipelineResult] {
        var results: [PipelineResult] = []
        for _ in 0..<sent {
            // Each command's results end with a NULL; a lost connection ends them all.
            guard let first = PQgetResult(handle) else { break }
            let status = PQresultStatus(first)
            switch status {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK: results.append(.rows(Rows(first)))
            case PGRES_PIPELINE_ABORTED:
                PQclear(first)
                results.append(.aborted)
            default:
                results.append(.failed(PostgresError(result: first, connection: handle, target: target)))
                PQclear(first)
            }
            while let extra = PQgetResult(handle) { PQclear(extra) }
        }
        if synced && results.count == sent && !isBroken {
            // The Sync's own result; after it the pipeline is idle.
            if let sync = PQgetResult(handle) { PQclear(sync) }
        }
        if PQexitPipelineMode(handle) != 1 {
            // Results still pending (the connection failed midway): drain what is left so the
            // connection is at least out of pipeline mode, or broken and dropped by its pool.
            while let extra = PQgetResult(handle) { PQclear(extra) }
            _ = PQexitPipelineMode(handle)  // still failing means broken: isBroken says so
        }
        return results
    }

    /// A read-only transaction's BEGIN, not sent yet (``deferBegin(_:)``).
    private var deferredBegin: String?

    /// Whether a COMMIT sent by ``commitWithoutWaiting()`` has not been answered and read yet.
    package private(set) var hasPendingCommit = false

    /// Begins a read-only transaction with `begin` (`BEGIN …`) when the next statement runs,
    /// in the same round trip: a prepared one (``queryPrepared(_:binary:)``) through
    /// ``begin(_:then:binary:)``, anything else after ``begin(_:)``. End it with
    /// ``commitWithoutWaiting()``, or ``cancelDeferredBegin()`` and a ROLLBACK when it failed.
    package func deferBegin(_ begin: String) throws {
        try settle()
        deferredBegin = begin
    }

    /// Forgets a BEGIN deferred and not sent yet (the transaction ends before it began).
    package func cancelDeferredBegin() {
        deferredBegin = nil
    }

    /// Ends a read-only transaction begun by ``deferBegin(_:)`` (nothing, if no statement
    /// ran): sends COMMIT and returns without waiting for its answer, which is read
    /// (``settle()``) before this connection runs anything else or is next lent by its pool.
    /// Everything read came from the transaction's one snapshot, and a read-only COMMIT
    /// changes nothing, so the caller need not wait a round trip for it.
    package func commitWithoutWaiting() throws {
        guard deferredBegin == nil else {
            deferredBegin = nil
            return
        }
        guard isInTransaction else { return }
        guard PQsendQuery(handle, "COMMIT") == 1 else { throw lastError }
        hasPendingCommit = true
    }

    /// Sends a deferred BEGIN, on its own, before a statement that cannot carry it.
    private func beginDeferred() throws {
        guard let begin = deferredBegin else { return }
        deferredBegin = nil
        try self.begin(begin)
    }

    /// Reads the answer of a COMMIT sent without waiting, if any: throws when it failed
    /// (the connection is then broken, or is left outside any transaction by a ROLLBACK).
    func settle() throws {
        guard hasPendingCommit else { return }
        hasPendingCommit = false
        var failure: PostgresError?
        while let result = PQgetResult(handle) {
            if failure == nil && PQresultStatus(result) != PGRES_COMMAND_OK {
                failure = PostgresError(result: result, connection: handle, target: target)
            }
            PQclear(result)
        }
        if let failure {
            if !isBroken && isInTransaction { _ = try? execute("ROLLBACK") }  // the failure is what matters
            throw failure
        }
    }

    /// `tenbin_` and the FNV-1a hash of `sql`, in hex.
    static func statementName(_ sql: String) -> String {
        "tenbin_" + String(FNV1a.hash(sql), radix: 16)
    }

    /// Runs one or more statements without parameters (a migration step, BEGIN, COMMIT).
    package func execute(_ sql: String) throws {
        try settle()
        try beginDeferred()
        _ = try check(exec { PQsendQuery(handle, sql) })
    }

    /// Sends one command with `send` (a `PQsend…` call) and returns its last result, as the
    /// `PQexec…` call of the same name would: NULL when it could not be sent (``lastError``
    /// says why). Unlike those, it waits for the answer as ``AnswerWaiting`` says.
    private func exec(_ send: () -> Int32) -> OpaquePointer? {
        waiting.begin()
        defer { waiting.end() }
        guard send() == 1 else { return nil }
        waiting.spinForAnswer(on: handle)
        var last: OpaquePointer?
        // A command's results end with a NULL; a failed connection ends them too.
        while let result = PQgetResult(handle) {
            PQclear(last)
            last = result
        }
        return last
    }

    private func check(_ result: OpaquePointer?) throws -> Rows {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK, let result else {
            let error = PostgresError(result: result, connection: handle, target: target)
            PQclear(result)
            throw error
        }
        return Rows(result)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            if !isBroken {
                // A failed ROLLBACK leaves nothing to undo: the server ends the transaction
                // when the connection goes, and the original error is what the caller needs.
                _ = try? execute("ROLLBACK")
            }
            throw error
        }
    }

    /// The socket, for waiting on notifications.
    var socket: Int32 { PQsocket(handle) }

    /// Reads what the server sent; false when the connection failed.
    func consumeInput() -> Bool { PQconsumeInput(handle) == 1 }

    /// The next notification received, if any: its channel and payload.
    func nextNotification() -> (channel: String, payload: String)? {
        guard let notification = PQnotifies(handle) else { return nil }
        defer { PQfreemem(notification) }
        return (String(cString: notification.pointee.relname), String(cString: notification.pointee.extra))
    }

    /// The last error libpq reported on this connection, scrubbed of the password.
    var lastError: PostgresError {
        PostgresError(result: nil, connection: handle, target: target)
    }
}

/// Calls `body` with a NULL-terminated array of C strings.
private func withCStrings<T>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
    var copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    copies.append(nil)
    return body(copies.map { $0.map { UnsafePointer($0) } })
}

/// Calls `body` with the binds as libpq takes them: their count, a C array of pointers to
/// each value's bytes (NULL for NULL), their lengths and their formats.
private func withBinds<T>(
    _ binds: [PostgresBind], _ body: (Int32, [UnsafePointer<CChar>?], [Int32], [Int32]) -> T
) -> T {
    let encoded = binds.map(\.encoded)
    let buffers: [UnsafeMutablePointer<CChar>?] = encoded.map { value in
        guard let value = value?.bytes else { return nil }
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, value.count))
        value.withUnsafeBufferPointer { source in
            if let base = source.baseAddress {
                UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: value.count)
            }
        }
        return buffer
    }
    defer { buffers.forEach { $0?.deallocate() } }
    return body(
        Int32(binds.count), buffers.map { $0.map { UnsafePointer($0) } }, encoded.map { Int32($0?.bytes.count ?? 0) },
        encoded.map { $0?.format ?? 0 })
}
