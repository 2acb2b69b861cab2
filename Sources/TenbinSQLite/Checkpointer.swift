import CSQLite
import Dispatch
import TenbinKit

/// Copies the writer's WAL back into the database file on a thread of its own, so a commit
/// does not pay for it.
///
/// By default SQLite checkpoints inside the commit that takes the WAL past 1,000 pages: the
/// committing thread stops to copy every page written since the last checkpoint and flush
/// the file. During an import that thread is the bound (one writer), and the checkpoints were
/// 3–4 % of its time (docs/benchmarks.md). Here the writer's WAL hook only asks this object
/// for a checkpoint, which a serial queue runs as SQLite's `PASSIVE` kind on a connection of
/// its own: it copies what no reader still needs, never waits for a lock and never blocks the
/// writer. The writer still checkpoints itself once the WAL passes ``inlinePages``, so the
/// WAL stays bounded if the queue falls behind. A checkpoint is crash-safe at every moment,
/// exactly as one run inside a commit.
///
/// SQLite starts writing the WAL from its beginning again only when a write transaction
/// begins with every page of it copied; a writer that begins its next transaction right after
/// each commit (an import) would find the queue's checkpoint still copying, and the WAL would
/// grow without end. So once a commit leaves it past ``restartPages``, the writer waits for
/// the copying to finish before it begins (``beforeWrite()``): it pays for one commit's pages
/// in four or more, and the WAL starts over.
final class Checkpointer: Sendable {
    /// WAL pages after a commit from which a checkpoint is asked for (SQLite's own default).
    static let requestPages: Int32 = 1000
    /// WAL pages after a commit from which the committing connection checkpoints itself
    /// (256 MiB of 4 KiB pages).
    static let inlinePages: Int32 = 65536
    /// WAL pages after a commit from which the next write waits for the checkpoint, so the
    /// WAL starts over (64 MiB of 4 KiB pages).
    static let restartPages: Int32 = 16384

    private let path: String
    private let queue = DispatchQueue(label: "tenbin.sqlite.checkpoint")
    /// Whether a checkpoint is queued and not started yet (one is enough).
    private let pending = Locked(false)
    /// The connection checkpoints run on, opened on first use; touched only on `queue`.
    private let connection = Locked<Database?>(nil)
    /// The WAL's size in pages after the last commit.
    private let walPages = Locked<Int32>(0)
    /// Checkpoints run so far (for tests).
    let completed = Locked(0)

    init(path: String) {
        self.path = path
    }

    /// Called by the writer's WAL hook after each commit, on the committing thread.
    func committed(_ writer: OpaquePointer?, walPages: Int32) {
        self.walPages.withLock { $0 = walPages }
        if walPages >= Self.inlinePages {
            // PASSIVE: copies what it can and returns; busy (the queue's checkpoint is running) is fine.
            _ = sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return
        }
        guard walPages >= Self.requestPages else { return }
        let queued = pending.withLock { pending in
            defer { pending = true }
            return pending
        }
        if !queued { queue.async { self.checkpoint() } }
    }

    /// Called by the writer before it begins a transaction: once the WAL has grown past
    /// ``restartPages``, waits until it is copied whole, so this transaction writes it from
    /// its beginning again.
    func beforeWrite() {
        guard walPages.withLock({ $0 }) >= Self.restartPages else { return }
        // After any checkpoint already queued, one more copies what it left.
        queue.sync { checkpoint() }
        walPages.withLock { $0 = 0 }
    }

    /// Closes the checkpoint connection (before the writer closes, so that the writer, as the
    /// last connection, copies the rest and removes the WAL as SQLite does at close).
    func close() {
        queue.sync {
            connection.withLock { connection in
                connection?.close()
                connection = nil
            }
        }
    }

    private func checkpoint() {
        pending.withLock { $0 = false }
        connection.withLock { connection in
            do {
                if connection == nil { connection = try Database(path: path, mode: .readWrite) }
                // A checkpoint that cannot run now (another process's is running, or the disk
                // refused) leaves the pages in the WAL, where they are as safe: the next commit
                // asks again, and the writer does it itself past the bound.
                try connection?.checkpoint()
                completed.withLock { $0 += 1 }
            } catch {
                connection = nil
            }
        }
    }
}

extension Database {
    /// Hands this (writer) connection's checkpoints to a ``Checkpointer`` instead of running
    /// them inside its commits.
    func checkpointInBackground() {
        let checkpointer = Checkpointer(path: path)
        backgroundCheckpointer = checkpointer
        let hook: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = {
            context, writer, _, pages in
            // The context is the checkpointer this connection keeps (below) while it is open.
            guard let context else { return SQLITE_OK }
            Unmanaged<Checkpointer>.fromOpaque(context).takeUnretainedValue().committed(writer, walPages: pages)
            return SQLITE_OK
        }
        withHandle { _ = sqlite3_wal_hook($0, hook, Unmanaged.passUnretained(checkpointer).toOpaque()) }
    }

    /// A `PASSIVE` checkpoint of this connection's database.
    func checkpoint() throws {
        let code = withHandle { sqlite3_wal_checkpoint_v2($0, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil) }
        guard code == SQLITE_OK || code == SQLITE_BUSY else {
            throw withHandle { SQLiteError(code: code, connection: $0, sql: nil) }
        }
    }
}
