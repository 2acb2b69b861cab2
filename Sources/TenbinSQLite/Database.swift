import CSQLite
import TenbinKit

/// One SQLite connection, the only owner of its handle.
///
/// A connection is not `Sendable`: SQLite's handle must be used by one thread at a time, so
/// whoever holds a `Database` serialises access to it (``SQLiteStore`` keeps its writer behind a
/// mutex, and ``SQLitePool`` lends each read connection to one caller at a time). Prepared
/// statements are cached by their SQL text and reused.
final class Database {
    /// How a connection opens its file.
    enum Mode {
        /// Read and write, creating the file when it is missing.
        case create
        /// Read and write an existing file.
        case readWrite
        /// A private, empty in-memory database (for reading a store that does not exist yet).
        case memory
        /// Read an existing file that cannot be written (a read-only mount): SQLite is told
        /// the file cannot change, so it needs no lock or shared-memory file beside it.
        case immutable
        /// Create a file no other connection sees yet (a new store's database, built before it
        /// is linked into place): no journal, no flushes (see ``Migrations/create(at:folder:)``).
        case staging
    }

    private let handle: OpaquePointer
    let path: String
    private var statements: [StatementKey: Statement] = [:]
    /// The checkpointer this connection's WAL hook calls, kept as long as the connection is
    /// open (``checkpointInBackground()``).
    var backgroundCheckpointer: Checkpointer?

    /// SQLite's process-wide settings, made once before the first connection opens: no memory
    /// statistics (Debian's build keeps them by default, a global mutex taken around each of
    /// SQLite's allocations and frees, which a vote batch makes hundreds of).
    private static let configureLibrary: Void = { _ = tb_sqlite_no_memory_statistics() }()

    /// Opens the database at `path` with tenbin's connection settings.
    ///
    /// WAL lets readers proceed while one process writes; the busy timeout makes a writer
    /// wait for another's lock instead of failing, which is what keeps concurrent votes from
    /// being lost.
    init(path: String, mode: Mode, busyTimeout: Int32 = 10_000) throws {
        Self.configureLibrary
        var flags = (mode == .immutable ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
        if mode == .create || mode == .staging { flags |= SQLITE_OPEN_CREATE }
        if mode == .memory { flags |= SQLITE_OPEN_MEMORY }
        let name =
            switch mode {
            case .memory: ":memory:"
            case .immutable: "file:\(Self.uriEscaped(path))?immutable=1"
            default: path
            }
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(name, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let error = SQLiteError(code: code, connection: connection, sql: nil).about(path)
            // A failed open still allocates a handle, which must be closed before throwing.
            _ = sqlite3_close_v2(connection)
            throw error
        }
        self.handle = connection
        self.path = path
        _ = sqlite3_extended_result_codes(connection, 1)  // always succeeds on an open handle
        _ = sqlite3_busy_timeout(connection, busyTimeout)  // always succeeds on an open handle
        if mode == .staging {
            // A crash leaves a file nobody uses: nothing to roll back, nothing to flush yet.
            try execute("PRAGMA journal_mode = OFF")
            try execute("PRAGMA synchronous = OFF")
        } else if mode != .memory && mode != .immutable {
            try execute("PRAGMA journal_mode = WAL")
            // In WAL mode NORMAL survives any process crash; only a power cut can drop the
            // last commits, never tear one. It makes each commit about ten times cheaper.
            try execute("PRAGMA synchronous = NORMAL")
            // Reading through a memory map skips a read() call per page: random lookups (search
            // ranking popular matches on a million posters) run about twice as fast. Pages come
            // from the OS cache, shared between processes; nothing is mapped until it is read.
            // Only where the process reads on (``SQLiteStore/mapDatabaseFiles(_:)``).
            if Self.mapsFiles.withLock({ $0 }) { try execute("PRAGMA mmap_size = 1073741824") }
        }
        try execute("PRAGMA foreign_keys = ON")
    }

    /// Whether connections opened from now on read their database through a memory map
    /// (``SQLiteStore/mapDatabaseFiles(_:)``).
    static let mapsFiles = Locked(true)

    /// Makes each commit durable on its own (`synchronous = FULL`: the log is flushed in the
    /// commit) and closing leave the write-ahead log for the next connection instead of
    /// copying it into the database: see ``SQLiteStore/leaveLogAtClose()``.
    func leaveLogAtClose() throws {
        try execute("PRAGMA synchronous = FULL")
        let code = tb_sqlite_no_checkpoint_on_close(handle)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: handle, sql: nil) }
    }

    /// `path` with the characters a URI treats specially percent-encoded.
    private static func uriEscaped(_ path: String) -> String {
        var bytes: [UInt8] = []
        for byte in path.utf8 {
            if byte == UInt8(ascii: "%") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                bytes += Array("%\(String(byte, radix: 16, uppercase: true))".utf8)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether the connection is open: ``close()`` was not called yet. Nothing may use a
    /// closed connection; its owner checks this under the lock that serialises it.
    private(set) var isOpen = true

    /// Closes the connection (its checkpointer's first, see ``Checkpointer/close()``). A
    /// connection in WAL mode that is the last one open to its database copies the log into
    /// it and removes the log and its index. Closing again does nothing.
    func close() {
        guard isOpen else { return }
        isOpen = false
        statements.removeAll()
        backgroundCheckpointer?.close()
        // Statements are finalized above, so close cannot report SQLITE_BUSY.
        _ = sqlite3_close_v2(handle)
    }

    deinit {
        // Its owner closes it; this only keeps a connection that was never closed from leaking.
        close()
    }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: handle, sql: sql) }
    }

    /// Returns the cached prepared statement for `sql`, reset and with no bindings.
    func statement(_ sql: String) throws -> Statement {
        let key = StatementKey(sql: sql)
        if let cached = statements[key] {
            cached.reset()
            return cached
        }
        let statement = try Statement(connection: handle, sql: sql)
        statements[key] = statement
        return statement
    }

    /// A statement's text as the cache's key, hashed by its length and last 32 bytes only: the
    /// same statement is looked up again and again (a vote batch asks for five a poster, of 80 to
    /// 400 characters), and hashing the whole text was most of a lookup. Equality compares the
    /// whole text's bytes (as SQLite reads them; `==` on strings compares characters, which two
    /// different byte sequences can share, and which would not match this hash), so two
    /// statements that share an end are never mistaken for each other: they only share a bucket.
    private struct StatementKey: Hashable {
        let sql: String

        static func == (one: Self, other: Self) -> Bool { one.sql.hasSameUTF8(as: other.sql) }

        func hash(into hasher: inout Hasher) {
            hasher.combine(sql.utf8.count)
            for byte in sql.utf8.suffix(32) { hasher.combine(byte) }
        }
    }

    /// A prepared statement of its own for `sql`, not cached: for running several of the same
    /// statement at once (a merge reads each of its segments with one).
    func freshStatement(_ sql: String) throws -> Statement {
        try Statement(connection: handle, sql: sql)
    }

    /// Runs `body` inside a transaction, committing when it returns and rolling back when
    /// it throws.
    ///
    /// `immediate` takes the write lock at the start (BEGIN IMMEDIATE), so a transaction
    /// that reads and then writes never fails halfway with a busy error.
    func transaction<T>(immediate: Bool = true, _ body: () throws -> T) throws -> T {
        backgroundCheckpointer?.beforeWrite()
        // Prepared once, like any statement: `sqlite3_exec` parsed both again for every
        // transaction, and every read is one (a page, a search, a vote's batch).
        try statement(immediate ? "BEGIN IMMEDIATE" : "BEGIN").run()
        do {
            let result = try body()
            try statement("COMMIT").run()
            return result
        } catch {
            // ROLLBACK fails only when no transaction is open (SQLite already rolled back).
            _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }

    /// Runs `body` with the connection's handle (for SQLite calls this type does not wrap).
    func withHandle<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T {
        try body(handle)
    }

    /// The rowid of the last row inserted on this connection.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last INSERT, UPDATE or DELETE on this connection.
    var changes: Int { Int(sqlite3_changes(handle)) }
}
