import Dispatch
import TenbinKit

/// Read connections of one database, lent out one caller at a time: each read runs in its
/// own transaction on its own connection, so in WAL mode reads proceed side by side and
/// never wait for the writer. At most `size` connections exist; a reader beyond that waits
/// for one to come back.
public final class SQLitePool: Sendable {
    /// Two read connections per core, at least four.
    public static let defaultSize = max(4, 2 * Machine.activeCores)

    private struct State {
        var path: String?
        var immutable = false
        var folder = ""
        var idle: [Database] = []
        var closed = false
    }

    // `Database` is not Sendable: a connection in `idle` is touched only by whoever took it
    // out under this lock, one caller at a time.
    private let state: Locked<State>
    private let slots: DispatchSemaphore
    private let size: Int

    init(size: Int) {
        self.size = max(1, size)
        state = Locked(State())
        slots = DispatchSemaphore(value: self.size)
    }

    /// Waits until every connection lent out is back, closes them all, and makes every later
    /// read throw ``StoreError`` (`closed`). Closing again does nothing more.
    func close() {
        // Readers that have not taken a connection yet throw from now on.
        let first = state.withLock { state in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return }
        // Holding every slot, nobody holds a connection.
        for _ in 0..<size { slots.wait() }
        let idle = state.withLock { state in
            defer { state.idle = [] }
            return state.idle
        }
        for database in idle { database.close() }
        for _ in 0..<size { slots.signal() }
    }

    /// Points the pool at the database once it exists.
    func configure(path: String, immutable: Bool, folder: String) {
        state.withLock {
            $0.path = path
            $0.immutable = immutable
            $0.folder = folder
        }
    }

    /// Runs `body` with a read connection of its own.
    func withConnection<T>(_ body: (Database) throws -> T) throws -> T {
        slots.wait()
        defer { slots.signal() }
        let (taken, path, immutable, folder, closed) = state.withLock { state in
            (state.idle.popLast(), state.path, state.immutable, state.folder, state.closed)
        }
        if closed { throw StoreError(.closed, at: folder) }
        let database: Database
        if let taken {
            database = taken
        } else {
            // Invariant: the store configures the pool before its first read.
            guard let path else { preconditionFailure("a read pool was used before its database was opened") }
            database = try Database(path: path, mode: immutable ? .immutable : .readWrite)
        }
        defer { state.withLock { $0.idle.append(database) } }
        return try body(database)
    }
}
