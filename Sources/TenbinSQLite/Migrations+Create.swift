import Glibc
import TenbinKit

extension Migrations {
    /// Creates the database at `path` with the newest schema, unless a file is already there
    /// (another process may have made it meanwhile: that one is kept).
    ///
    /// The database is built in a file of its own beside `path` without a journal and without
    /// a flush (nothing else can see that file), then flushed once and linked into place (on a
    /// file system without hard links, renamed in a way that never replaces a database another
    /// process placed: see ``FileSystem/place(_:at:folder:ways:)``), and the folder flushed: two flushes where opening `path` in WAL mode and migrating it took eight
    /// (the switch to WAL through a rollback journal, then the checkpoint at close), and a
    /// process that opens `path` finds either nothing or the whole schema, never a half-made
    /// one. A failure removes the file it was building.
    static func create(at path: String, folder: String) throws {
        let staging = "\(path).tmp-\(getpid())"
        // A file of this name is left by a process of the same id killed while creating: stale.
        _ = unlink(staging)  // nothing to remove is the usual case
        do {
            try build(staging)
            try flush(staging, at: folder)
            do {
                _ = try FileSystem.place(staging, at: path, folder: folder)
            } catch .failed(let code) {
                throw creationError(code, at: folder)
            } catch .unsupported {
                throw StoreError(.unavailable(Self.noWayToPlace), at: folder)
            }
            // Linked, renamed, or made by another process: the name is `path`'s either way.
            _ = unlink(staging)
            try flush(folder, at: folder)
        } catch {
            for suffix in ["", "-wal", "-shm"] { _ = unlink(staging + suffix) }  // whatever the failure left
            throw error
        }
    }

    /// The newest schema in a new file at `staging`, marked for WAL mode.
    private static func build(_ staging: String) throws {
        let database = try Database(path: staging, mode: .staging)
        try database.transaction {
            try database.execute(freshSchema)
            try database.execute("PRAGMA user_version = \(steps.count)")
        }
        // Written into the file's header; the empty log is removed when this connection closes.
        try database.execute("PRAGMA journal_mode = WAL")
    }

    /// fsync of the file or folder at `path`.
    private static func flush(_ path: String, at folder: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw creationError(errno, at: folder) }
        defer { _ = close(descriptor) }  // read-only: nothing to lose at close
        guard fsync(descriptor) == 0 else { throw creationError(errno, at: folder) }
    }

    static let noWayToPlace =
        "cannot create its database: the file system supports neither hard links, nor a rename that never replaces, nor file locks"

    private static func creationError(_ code: Int32, at folder: String) -> StoreError {
        switch code {
        case EROFS, EACCES, EPERM: StoreError(.readOnly, at: folder)
        case ENOSPC, EDQUOT: StoreError(.full, at: folder)
        default: StoreError(.unavailable("cannot create its database: \(SystemError.message(for: code))"), at: folder)
        }
    }
}
