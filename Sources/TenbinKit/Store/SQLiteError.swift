import CSQLite

/// A failure reported by SQLite, with the statement it was running.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// SQLite's primary or extended result code.
    public let code: Int32
    /// SQLite's own message for the failure.
    public let message: String
    /// The SQL that failed, when one was running.
    public let sql: String?

    init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    init(code: Int32, connection: OpaquePointer?, sql: String? = nil) {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        self.init(code: code, message: message ?? String(cString: sqlite3_errstr(code)), sql: sql)
    }

    /// Whether another connection held a lock past the busy timeout.
    public var isBusy: Bool { code & 0xff == SQLITE_BUSY || code & 0xff == SQLITE_LOCKED }

    /// Whether the store's disk or file system refused the write.
    public var isDiskFull: Bool { code & 0xff == SQLITE_FULL }

    public var description: String {
        var text = "database error \(code): \(message)"
        if code & 0xff == SQLITE_READONLY { text += " (is the store read-only?)" }
        if code & 0xff == SQLITE_FULL { text += " (the disk is full)" }
        if let sql { text += " — in: \(sql.prefix(120))" }
        return text
    }
}
