/// An observation's own read connection to a store's database, and the version it last read.
///
/// Not `Sendable`: SQLite's handle must be used by one thread at a time, and a reader has
/// exactly one owner — the iterator of one observation — which uses it only inside `next()`,
/// one call at a time. The connection closes when the reader is closed or released.
final class FeedReader {
    /// What a reader does, reported to an observation's monitor (tests count these).
    enum Event: Sendable, Equatable {
        /// The connection was opened.
        case opened
        /// The data version was checked.
        case polled
        /// The feed was read.
        case read
        /// The connection was closed.
        case closed
    }

    let path: String
    let feed: Feed
    private let monitor: (@Sendable (Event) -> Void)?
    private var database: Database?
    /// The data version the last read (or schema check) saw on the open connection.
    private var version: Int64?
    private var hasDelivered = false

    init(path: String, feed: Feed, monitor: (@Sendable (Event) -> Void)?) {
        self.path = path
        self.feed = feed
        self.monitor = monitor
    }

    deinit {
        close()
    }

    /// The feed when something was committed since the last read, else nil. The first call
    /// always returns the feed: empty while the store has no database (or no schema) yet.
    func readIfChanged() throws -> [Poster]? {
        if database == nil && FileSystem.exists(path) {
            database = try Database(path: path, mode: .readWrite)
            monitor?(.opened)
        }
        guard let db = database else { return firstDelivery([]) }
        if let version {
            monitor?(.polled)
            guard try PosterStore.dataVersion(of: db) != version else { return nil }
        }
        guard try PosterStore.hasSchema(db) else {
            // Another process is creating the store: look again after its next commit.
            version = try PosterStore.dataVersion(of: db)
            return firstDelivery([])
        }
        let (posters, readVersion) = try PosterStore.read(feed, in: db)
        version = readVersion
        hasDelivered = true
        monitor?(.read)
        return posters
    }

    /// `posters` the first time anything is delivered, nil after.
    private func firstDelivery(_ posters: [Poster]) -> [Poster]? {
        defer { hasDelivered = true }
        return hasDelivered ? nil : posters
    }

    /// Closes the connection (it reopens on the next read).
    func close() {
        guard database != nil else { return }
        database = nil  // Database's deinit closes the handle
        version = nil
        monitor?(.closed)
    }
}
