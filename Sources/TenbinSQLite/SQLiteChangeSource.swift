import TenbinKit

/// Live-feed changes of a SQLite store: `PRAGMA data_version` on a connection of its own.
///
/// Two reads of it on the same connection differ exactly when another connection (of any
/// process, this one's writer included) committed in between; a read costs a look at the WAL
/// index, not at the data. Before the database file exists the version is 0; once it
/// appears, versions are offset so the first one differs.
///
/// The version is looked at when something says a commit may have happened, and on every
/// tick in case nothing did: this process's writer signals after each of its commits, and a
/// ``FileWriteWatch`` on the store folder signals when any process writes the write-ahead log
/// (every commit does, the first one of a new store included). A log write comes before the commit it belongs to is visible, so
/// after a signal that shows nothing yet the version is looked at again soon (2, 4, 8 … ms up
/// to the tick). Under a clock other than the real ones (a test's virtual clock, which its
/// caller drives) signals wake nobody: only ticks find changes.
final class SQLiteChangeSource: ChangeSource {
    private let path: String
    private let folder: String
    // The connection is used only inside this lock; `closed` once ``close()`` closed it.
    private let connection = Locked<(database: Database?, closed: Bool)>((nil, false))
    /// Moved by this process's commits and by writes to the write-ahead log.
    private let signal = ChangeSignal()
    /// The watch on the folder once one was tried: nil inside when it could not be made.
    private let watch = Locked<FileWriteWatch??>(nil)

    /// The change source of the database at `path`, in `folder`.
    init(path: String, folder: String) {
        self.path = path
        self.folder = folder
    }

    /// This process committed: feeds waiting on the store look at once.
    func committed() {
        signal.signal()
    }

    /// Watches the folder from the first wait on (a process that never waits for a change
    /// holds no inotify instance). A folder that cannot be watched leaves it to the ticks.
    private func startWatching() {
        watch.withLock { watch in
            guard watch == nil else { return }
            // SQLite's log is the database file's name with "-wal".
            let log = String(path.split(separator: "/").last ?? "") + "-wal"
            watch = .some(FileWriteWatch(folder: folder, name: log) { [signal] in signal.signal() })
        }
    }

    func currentVersion() throws -> StoreVersion {
        try connection.withLock { connection in
            if connection.closed { throw StoreError(.closed, at: folder) }
            if connection.database == nil {
                guard FileSystem.exists(path) else { return StoreVersion(0) }
                connection.database = try Database(path: path, mode: .readWrite)
            }
            // Checked just above: the connection is open here.
            let version = try connection.database!.statement("PRAGMA data_version").first { $0.int64(0) } ?? 0
            return StoreVersion(1 << 40 + version)
        }
    }

    /// Closes the connection and stops watching the folder; every later look throws
    /// ``StoreError`` (`closed`). The store closes it before its writer, which must be the
    /// last connection to close for SQLite to remove the write-ahead log.
    func close() {
        connection.withLock { connection in
            connection.database?.close()
            connection = (nil, true)
        }
        // No watch is started any more; the folder's is cancelled as it goes.
        watch.withLock { $0 = .some(nil) }
    }

    func nextChange(after version: StoreVersion, interval: Duration, clock: any Clock<Duration>) async throws -> StoreVersion {
        guard ChangeSignal.wakes(on: clock) else {
            while true {
                try await clock.sleep(for: interval)
                let now = try currentVersion()
                if now != version { return now }
            }
        }
        startWatching()
        var pause = interval
        while true {
            // Read before the version: a signal after the look below still wakes the wait.
            let seen = signal.count
            let now = try currentVersion()
            if now != version { return now }
            if try await signal.wait(after: seen, timeout: pause, clock: clock) {
                pause = Self.firstRecheck
            } else {
                pause = pause < interval ? min(interval, pause * 2) : interval
            }
        }
    }

    /// How soon the version is looked at again after a signal that showed no commit yet.
    static let firstRecheck: Duration = .milliseconds(2)
}
