import CSQLite
import TenbinKit

/// A failure reported by SQLite, with the statement it was running.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// SQLite's primary or extended result code.
    public let code: Int32
    /// SQLite's own message for the failure.
    public let message: String
    /// The SQL that failed, when one was running.
    public let sql: String?
    /// The database file, when known.
    public let path: String?

    init(code: Int32, message: String, sql: String? = nil, path: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
        self.path = path
    }

    init(code: Int32, connection: OpaquePointer?, sql: String? = nil) {
        var message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        // An I/O error's cause is in the system's errno ("No space left on device").
        if code & 0xff == SQLITE_IOERR || code & 0xff == SQLITE_CANTOPEN, let connection, sqlite3_system_errno(connection) != 0 {
            message = (message ?? "I/O error") + ": " + SystemError.message(for: sqlite3_system_errno(connection))
        }
        let path = connection.flatMap { sqlite3_db_filename($0, "main") }.map { String(cString: $0) }
        self.init(
            code: code, message: message ?? String(cString: sqlite3_errstr(code)), sql: sql, path: path?.isEmpty == false ? path : nil)
    }

    /// The same error, naming the database file.
    func about(_ path: String) -> SQLiteError {
        SQLiteError(code: code, message: message, sql: sql, path: self.path ?? path)
    }

    /// Whether another connection held a lock past the busy timeout.
    package var isBusy: Bool { code & 0xff == SQLITE_BUSY || code & 0xff == SQLITE_LOCKED }

    /// Whether the database could not be written because it is read-only.
    package var isReadOnly: Bool { code & 0xff == SQLITE_READONLY }

    /// Whether the store's disk or file system refused the write.
    package var isDiskFull: Bool { code & 0xff == SQLITE_FULL }

    /// One sentence for a user: the file and SQLite's reason, never the statement.
    public var description: String {
        (path.map { "\($0): " } ?? "database: ") + message
    }

    /// The statement that failed, for debugging (never shown to users by tenbin).
    public var debugDescription: String {
        description + " [SQLite \(code)" + (sql.map { " in: \($0.split(separator: "\n").first.map(String.init)?.prefix(80) ?? "")" } ?? "")
            + "]"
    }

    /// The store error a user sees for this failure of the store in `folder`.
    func storeError(at folder: String) -> any Error {
        switch code & 0xff {
        case SQLITE_READONLY: StoreError(.readOnly, at: folder)
        case SQLITE_FULL: StoreError(.full, at: folder)
        case SQLITE_BUSY, SQLITE_LOCKED: StoreError(.busy, at: folder)
        case SQLITE_NOTADB: StoreError(.notAStore("its tenbin.sqlite is not a SQLite database"), at: folder)
        case SQLITE_CORRUPT: StoreError(.damaged(message), at: folder)
        case SQLITE_CANTOPEN:
            StoreError(.unavailable("cannot open its database: is the folder missing, unreadable or read-only?"), at: folder)
        case SQLITE_IOERR: StoreError(.unavailable(message), at: folder)
        default: self
        }
    }
}

extension SQLiteError: KindedError, CustomDebugStringConvertible {
    /// Failures the store's state causes are `unavailable`; the rest are internal.
    public var kind: ErrorKind {
        switch code & 0xff {
        case SQLITE_READONLY, SQLITE_FULL, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_CANTOPEN, SQLITE_IOERR: .unavailable
        case SQLITE_CONSTRAINT: .conflict
        default: .internal
        }
    }
}
