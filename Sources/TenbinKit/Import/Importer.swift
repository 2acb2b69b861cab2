/// How an import runs.
public struct ImportOptions: Sendable, Hashable {
    /// How many images are read and re-encoded at once (default: the number of cores). Never
    /// more images than this are in memory at a time.
    public var jobs: Int
    /// Check and re-encode everything, but write nothing (no blob, no row, no store folder).
    public var dryRun: Bool
    /// List every poster in the report; when off, only failures are listed (the counts are
    /// always complete). Off keeps a million-line import's report small.
    public var listsEveryItem: Bool
    /// Posters committed per transaction, at most.
    public var batchSize: Int
    /// A batch waiting this long is committed even when not full, so an interrupted import
    /// loses little work.
    public var batchInterval: Duration
    /// How many folders or lines may wait, read, for their images (bounds memory).
    public var window: Int

    /// Options with tenbin's defaults.
    public init(
        jobs: Int = ImportOptions.defaultJobs, dryRun: Bool = false, listsEveryItem: Bool = true, batchSize: Int = 20_000,
        batchInterval: Duration = .milliseconds(500), window: Int = 512
    ) {
        // Invariants of the scheduler: it needs at least one job and room for one entry.
        precondition(jobs >= 1 && batchSize >= 1 && window >= 1, "jobs, batch size and window must be at least 1")
        self.jobs = jobs
        self.dryRun = dryRun
        self.listsEveryItem = listsEveryItem
        self.batchSize = batchSize
        self.batchInterval = batchInterval
        self.window = window
    }

    /// The number of cores online.
    public static var defaultJobs: Int { Machine.activeCores }
}

/// Imports many posters into a board: a folder of poster folders or a JSON Lines manifest.
///
/// Images are read, recognised (an upload stored before is not decoded again) and
/// re-encoded in a task group of at most `jobs` tasks; each distinct image path is read
/// once per import. Posters are committed in source order, in batched transactions, and a
/// poster identical to one already stored is skipped, so running an import again adds
/// nothing. Killing an import at any moment leaves a sound store: a batch is committed whole
/// or not at all, and blob files written for an uncommitted batch are only unreferenced
/// files (`gc` removes them; a rerun reuses them).
public struct Importer: Sendable {
    public let board: Board
    public let options: ImportOptions

    /// An importer into `board`.
    public init(board: Board, options: ImportOptions = ImportOptions()) {
        self.board = board
        self.options = options
    }

    /// Runs the import. A folder or line that fails is listed in the report and the rest goes
    /// on; this throws only when the source cannot be read, when a folder holds no poster
    /// folders (an empty folder is an empty report), or when the store itself fails (what
    /// was committed stays, and running the import again finishes it).
    ///
    /// `progress` is called from the importing task at most ten times a second, and once at
    /// the end.
    public func run(_ source: ImportSource, progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }) async throws -> ImportReport
    {
        var reader = try source.makeReader()
        let run = ImportRun(board: board, options: options, total: reader.total, reusesImages: reader.reusesImages, progress: progress)
        try await run.execute(&reader)
        let report = run.report
        // Subfolders that all held nothing: say so rather than report an empty success.
        if let folders = reader as? FolderReader, folders.total > 0, report.imported + report.skipped + report.failed == 0 {
            throw folders.nothingFound()
        }
        return report
    }
}
