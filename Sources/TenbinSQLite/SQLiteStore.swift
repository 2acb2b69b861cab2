import Glibc
import TenbinKit

/// The embedded backend: a store folder's `tenbin.sqlite` (WAL mode).
///
/// One writer connection takes turns behind a lock (SQLite allows one writer at a time
/// anyway, and `BEGIN IMMEDIATE` with a busy timeout makes writers of every process wait for
/// each other instead of failing); reads come from a small pool of read connections, each
/// reading its own WAL snapshot, so reads run at once and never wait for the writer. Live
/// feeds look at `PRAGMA data_version` on a connection of their own.
///
/// A store that does not exist yet reads as empty and creates nothing; it is opened as soon
/// as another process creates it.
public final class SQLiteStore: StoreBackend {
    /// The store folder.
    public let folder: String
    /// The database file.
    public let path: String
    /// The folder, as messages name the store.
    public var location: String { folder }

    /// The open connections once the database file exists, and whether ``close()`` closed them.
    private let connections: Locked<(open: Connections?, closed: Bool)>
    private let readers: SQLitePool
    /// Held while ``close()`` closes the connections (its value counts nothing).
    private let closing = Locked(0)
    let changeSource: SQLiteChangeSource

    /// The open connections, once the database file exists.
    struct Connections {
        let writer: Locked<Database>
        let readOnly: Bool
    }

    /// Opens the store in `folder`. With `create`, the folder and database are made when
    /// missing; without, a missing store reads as empty and nothing is created. A path that
    /// is not a folder, or a database that is not tenbin's, is refused with an error naming it.
    public convenience init(folder: String, create: Bool, readers: Int = SQLitePool.defaultSize) throws {
        try self.init(folder: folder, create: create, readers: readers, searchMergeStep: SQLiteSession.searchMergeStep)
    }

    /// The least each write moves merges of the search index on by, in bytes of lists (tests
    /// make it small to see merges in many steps).
    let searchMergeStep: Int

    /// Whether votes update the trending score: always, but for `make bench`'s comparison of
    /// what a vote cost before trending order (`TENBIN_BENCH_NO_TRENDING=1` when the store
    /// opens; such a store's trending order is wrong).
    let scoresVotes = getenv("TENBIN_BENCH_NO_TRENDING").map { String(cString: $0) != "1" } ?? true

    /// Walks' keys as of their marks, read from the vote log so far (``VoteLogKeys``).
    let voteLogKeys = VoteLogKeys()

    init(folder: String, create: Bool, readers: Int = SQLitePool.defaultSize, searchMergeStep: Int) throws {
        self.searchMergeStep = searchMergeStep
        self.folder = folder
        self.path = "\(folder)/tenbin.sqlite"
        if FileSystem.exists(folder) && !FileSystem.isFolder(folder) {
            throw StoreError(.notAStore("it is a file, not a folder"), at: folder)
        }
        if FileSystem.exists(path) && FileSystem.isFolder(path) {
            throw StoreError(.notAStore("its tenbin.sqlite is a folder"), at: folder)
        }
        if create { try FileSystem.makeFolders(folder) }
        self.readers = SQLitePool(size: readers)
        self.changeSource = SQLiteChangeSource(path: path, folder: folder)
        self.connections = Locked((nil, false))
        if create || FileSystem.exists(path) { _ = try open(creating: create) }
    }

    /// The connections, opening the database when its file has appeared (or creating it);
    /// nil while it does not exist. Throws once the store is closed.
    func open(creating: Bool = false) throws -> Connections? {
        try connections.withLock { connections in
            if connections.closed { throw StoreError(.closed, at: folder) }
            if let open = connections.open { return open }
            guard creating || FileSystem.exists(path) else { return nil }
            let opened = try Self.openWriter(path: path, folder: folder)
            connections.open = opened
            readers.configure(path: path, immutable: opened.readOnly, folder: folder)
            return opened
        }
    }

    /// The page cache the writer connection may grow to, in KiB (64 MiB).
    static let writerCacheKiB = 65536

    private static func openWriter(path: String, folder: String) throws -> Connections {
        do {
            var readOnly = false
            var database: Database
            do {
                if !FileSystem.exists(path) { try Migrations.create(at: path, folder: folder) }
                database = try Database(path: path, mode: .readWrite)
            } catch let error as SQLiteError where FileSystem.exists(path) && !FileSystem.isWritable(path) {
                // A store on a read-only mount can still be read; any write then fails with a
                // "read-only" error naming the store.
                guard let immutable = try? Database(path: path, mode: .immutable) else { throw error }
                database = immutable
                readOnly = true
            }
            try Migrations.migrate(database, readOnly: readOnly)
            if !readOnly {
                // A big write (an import's batch) touches pages all over the indexes; SQLite's
                // 2 MB default cache made it re-read them from the WAL for every batch (a third
                // of a manifest import's time went to read() calls). The cache grows only as
                // pages are used.
                try database.execute("PRAGMA cache_size = -\(Self.writerCacheKiB)")
                // Commits leave copying the WAL into the database to another thread.
                database.checkpointInBackground()
            }
            return Connections(writer: Locked(database), readOnly: readOnly)
        } catch let error as SQLiteError {
            throw error.storeError(at: folder)
        } catch let error as StoreError {
            throw StoreError(error.reason, at: folder)
        }
    }

    public func read<T>(_ body: (any StoreReading) throws -> T) throws -> T {
        guard try open() != nil else { return try body(EmptyStoreReading()) }
        return try readers.withConnection { database in
            try translatingErrors {
                try database.transaction(immediate: false) { try body(SQLiteSession(database, voteLogKeys: voteLogKeys)) }
            }
        }
    }

    public func write<T>(_ body: (any StoreWriting) throws -> T) throws -> T {
        guard let connections = try open() else { throw StoreError(.missing, at: folder) }
        if connections.readOnly { throw StoreError(.readOnly, at: folder) }
        let value = try connections.writer.withLock { database in
            guard database.isOpen else { throw StoreError(.closed, at: folder) }
            return try translatingErrors {
                try database.transaction(immediate: true) {
                    try body(SQLiteSession(database, searchMergeStep: searchMergeStep, scoresVotes: scoresVotes))
                }
            }
        }
        changeSource.committed()
        return value
    }

    public var changes: any ChangeSource { changeSource }

    public func integrityProblems() throws -> [String] {
        guard let connections = try open() else {
            // A folder without a database is a store nothing was written to yet: sound.
            guard FileSystem.exists(folder) else { throw StoreError(.missing, at: folder) }
            return []
        }
        return try connections.writer.withLock { database in
            guard database.isOpen else { throw StoreError(.closed, at: folder) }
            return try translatingErrors { try SQLiteSession(database).integrityProblems() }
        }
    }

    /// Whether the connections stores open from now on, in this process, read their database
    /// through a memory map (yes until told otherwise). A process that serves reads for long
    /// (`tenbin serve`) gains: a page read again is a memory access, no `read()` call. A process
    /// that reads a few pages and exits (any other tenbin command) loses: each page it touches
    /// is a page fault that maps its neighbours too, and the whole map is torn down at exit
    /// (a one-character search at a million posters took about 1 ms of its 8 ms longer mapped).
    public static func mapDatabaseFiles(_ mapped: Bool) {
        Database.mapsFiles.withLock { $0 = mapped }
    }

    /// For a process that makes one small write and exits (`tenbin vote`): each commit is
    /// flushed to the write-ahead log before it returns, and closing leaves the log beside the
    /// database for the next process instead of copying it in. A vote then costs one or two
    /// flushes instead of four, and the next connection reads the log as every SQLite reader
    /// does; only a reader of the database file alone (a copy made without the log, or opened
    /// `immutable`) misses those commits until some other command closes the store. Does
    /// nothing on a store that does not exist or is read-only, nor once the log is longer than
    /// ``leftLogBytes``: the first connection of every process reads the whole log to rebuild
    /// its index, and a log that nobody folds in is never restarted (its checkpoints are
    /// forgotten with the shared-memory index), so the close that passes the bound folds the log
    /// in and removes it as every other command's does.
    public func leaveLogAtClose() throws {
        var info = stat()
        if stat(path + "-wal", &info) == 0, info.st_size > Self.leftLogBytes { return }
        guard let connections = try open(), !connections.readOnly else { return }
        try connections.writer.withLock { database in
            guard database.isOpen else { throw StoreError(.closed, at: folder) }
            try translatingErrors { try database.leaveLogAtClose() }
        }
    }

    /// The longest log ``leaveLogAtClose()`` leaves: 64 pages of 4 KiB with their frame
    /// headers, a dozen votes (a vote writes five to ten pages).
    static let leftLogBytes = 64 * (4096 + 24) + 32

    /// Closes the change source's connection, the read connections (once every read running
    /// has ended) and then the writer (once the write running has), whose checkpointer's
    /// connection closes first: the writer is the last connection of this process, so unless
    /// another process has the store open, SQLite copies the write-ahead log into the database
    /// and removes it and its index, leaving the database file alone holding every commit.
    public func close() {
        // A second call, made meanwhile, returns once the first has closed everything.
        closing.withLock { _ in
            let opened = connections.withLock { connections -> Connections? in
                defer { connections = (nil, true) }
                return connections.open
            }
            changeSource.close()
            readers.close()
            opened?.writer.withLock { $0.close() }
        }
    }

    /// Runs `body`, turning SQLite's errors into store errors a user can act on.
    private func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw error.storeError(at: folder)
        }
    }
}

/// What a store that does not exist yet reads as: nothing.
struct EmptyStoreReading: StoreReading {
    func posters(ids: [Int64]) throws -> [Poster] { [] }
    func page(order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int) throws -> [Poster] { [] }
    func count() throws -> Int { 0 }
    func storedImage(source: Digest, encodingKey: String) throws -> StoredImage? { nil }
    func storedImage(digest: Digest) throws -> StoredImage? { nil }
    func blobRowsPresent(_ digests: [Digest]) throws -> Set<Digest> { [] }
    func blobRows() throws -> [StoredImage] { [] }
    func posterIDs(using digest: Digest) throws -> [Int64] { [] }
    func posterIDs(image1: Digest, image2: Digest, contents: String) throws -> [Int64] { [] }
    func searchCandidates(_ terms: [IndexTerm], below: Int64?, visit: (SearchEntry) throws -> Bool) throws {}
    func searchCandidateIDs(_ terms: [IndexTerm], limit: Int) throws -> [Int64] { [] }
    func searchEntries(ids: [Int64]) throws -> [SearchEntry] { [] }
    func searchEntriesByVotes(after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws {}
    func searchEntriesByScore(after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws {}
    func posters(afterID: Int64, limit: Int) throws -> [Poster] { [] }
    func blobRecords(after: Digest?, limit: Int) throws -> [BlobRecord] { [] }
    func lastPosterID() throws -> Int64 { 0 }
    func voteLogMarks() throws -> VoteLogMarks { VoteLogMarks(last: 0, oldest: 0) }
    func keysAsOf(mark: Int64, order: FeedOrder) throws -> [Int64: Int] { [:] }
    func hiddenPosters() throws -> [HiddenPoster] { [] }
    func reports(posterID: Int64?) throws -> [Report] { [] }
    func clearedReporters(posterID: Int64?) throws -> [ClearedReporter] { [] }
    func auditEntries(posterID: Int64?, beforeID: Int64?, limit: Int) throws -> [AuditEntry] { [] }
    func perceptualHashes(_ digests: [Digest]) throws -> [Digest: PerceptualHash] { [:] }
    func blockedImages() throws -> [BlockedImage] { [] }
    func timelineRows(posters ids: ClosedRange<Int64>) throws -> [TimelineRow] { [] }
}
