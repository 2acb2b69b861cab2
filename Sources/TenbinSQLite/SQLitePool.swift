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
    }

    // `Database` is not Sendable: a connection in `idle` is touched only by whoever took it
    // out under this lock, one caller at a time.
    private let state: Locked<State>
    private let slots: DispatchSemaphore

    init(size: Int) {
        state = Locked(State())
        slots = DispatchSemaphore(value: max(1, size))
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
        let (taken, path, immutable) = state.withLock { state in (state.idle.popLast(), state.path, state.immutable) }
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
