import TenbinKit

/// Live-feed changes of a SQLite store: `PRAGMA data_version` on a connection of its own.
///
/// Two reads of it on the same connection differ exactly when another connection (of any
/// process, this one's writer included) committed in between; a read costs a look at the WAL
/// index, not at the data. Before the database file exists the version is 0; once it
/// appears, versions are offset so the first one differs.
final class SQLiteChangeSource: ChangeSource {
    private let path: String
    // The connection is used only inside this lock.
    private let connection = Locked<Database?>(nil)

    init(path: String) {
        self.path = path
    }

    func currentVersion() throws -> StoreVersion {
        try connection.withLock { connection in
            if connection == nil {
                guard FileSystem.exists(path) else { return StoreVersion(0) }
                connection = try Database(path: path, mode: .readWrite)
            }
            // Checked just above: the connection is open here.
            let version = try connection!.statement("PRAGMA data_version").first { $0.int64(0) } ?? 0
            return StoreVersion(1 << 40 + version)
        }
    }

    func nextChange(after version: StoreVersion, interval: Duration, clock: any Clock<Duration>) async throws -> StoreVersion {
        while true {
            try await clock.sleep(for: interval)
            let now = try currentVersion()
            if now != version { return now }
        }
    }
}
