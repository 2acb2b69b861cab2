import CSQLite
import TenbinKit

/// A prepared SQLite statement, the only owner of its handle.
final class Statement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer
    let sql: String

    init(connection: OpaquePointer, sql: String) throws {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw SQLiteError(code: code, connection: connection, sql: sql)
        }
        self.handle = statement
        self.connection = connection
        self.sql = sql
    }

    deinit {
        // finalize returns the last step's error, already reported when it happened.
        _ = sqlite3_finalize(handle)
    }

    /// Clears the bindings and rewinds the statement for another run.
    func reset() {
        // reset repeats the last step's error, already reported when it happened.
        _ = sqlite3_reset(handle)
        _ = sqlite3_clear_bindings(handle)  // always SQLITE_OK
    }

    /// Binds `values` to the parameters ?1, ?2, … in order.
    @discardableResult
    func bind(_ values: any SQLValue...) throws -> Statement {
        try bind(values)
    }

    /// Binds `values` to the parameters ?1, ?2, … in order.
    @discardableResult
    func bind(_ values: [any SQLValue]) throws -> Statement {
        for (offset, value) in values.enumerated() {
            let code = value.bind(to: handle, at: Int32(offset + 1))
            guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection, sql: sql) }
        }
        return self
    }

    /// Binds one value to parameter `index` (1 for ?1): for statements run once per row of a
    /// batch, without the array of existentials the variadic form builds on every call.
    func bind<Value: SQLValue>(_ value: Value, at index: Int32) throws {
        let code = value.bind(to: handle, at: index)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection, sql: sql) }
    }

    /// Advances to the next row; false when the statement is done.
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw SQLiteError(code: code, connection: connection, sql: sql)
        }
    }

    /// Runs the statement to completion, ignoring any rows.
    func run() throws {
        while try step() {}
    }

    /// Collects one value per row.
    func map<T>(_ transform: (Statement) throws -> T) throws -> [T] {
        var rows: [T] = []
        while try step() { rows.append(try transform(self)) }
        return rows
    }

    /// The first row's value, or nil when there is no row.
    func first<T>(_ transform: (Statement) throws -> T) throws -> T? {
        guard try step() else { return nil }
        let value = try transform(self)
        reset()
        return value
    }

    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// A blob column's bytes (empty for NULL or an empty blob).
    func blob(_ column: Int32) -> [UInt8] {
        // The pointer comes first: it may change the value's type, and with it the length.
        guard let bytes = sqlite3_column_blob(handle, column) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}

/// A Swift value that can be bound to a statement parameter.
protocol SQLValue: Sendable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32
}

extension Int: SQLValue {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_int64(statement, index, Int64(self))
    }
}

extension Int64: SQLValue {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_int64(statement, index, self)
    }
}

extension Double: SQLValue {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_double(statement, index, self)
    }
}

extension String: SQLValue {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        // The length is given, not -1: text with a NUL character is stored whole, not cut there.
        // The bytes are lent in place (no C-string copy); SQLite copies them (transient).
        var text = self
        return text.withUTF8 { bytes in
            guard let start = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_text(statement, index, "", 0, tb_sqlite_transient())
            }
            return start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(statement, index, $0, Int32(bytes.count), tb_sqlite_transient())
            }
        }
    }
}

extension [UInt8]: SQLValue {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        // SQLite copies the bytes (transient); an empty array is an empty blob, not NULL.
        withUnsafeBytes { bytes in
            sqlite3_bind_blob(
                statement, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), tb_sqlite_transient())
        }
    }
}

extension Optional: SQLValue where Wrapped: SQLValue {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch self {
        case .none: sqlite3_bind_null(statement, index)
        case .some(let value): value.bind(to: statement, at: index)
        }
    }
}
