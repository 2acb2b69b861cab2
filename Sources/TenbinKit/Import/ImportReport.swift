/// What happened to one poster of an import.
public enum ImportStatus: String, Sendable, CaseIterable {
    /// Added to the board (in a dry run: would be added).
    case imported
    /// Identical to a poster already on the board (same two images, contents and hashtags),
    /// or to one earlier in the same import: not added again.
    case skipped
    /// Could not be imported; the rest of the import went on.
    case failed
}

/// One poster of an import, as the report lists it.
public struct ImportItem: Sendable, Hashable {
    /// `DIR/name` for a poster folder, `MANIFEST:LINE` for a manifest line.
    public let source: String
    public let status: ImportStatus
    /// For `imported`, the new poster's id; for `skipped`, the id of the identical poster
    /// already stored. Nil for failures, and in a dry run for posters not yet stored.
    public let id: Int64?
    /// Why a `failed` item failed, as one sentence naming the file; nil otherwise.
    public let error: String?

    /// Creates a report item.
    public init(source: String, status: ImportStatus, id: Int64? = nil, error: String? = nil) {
        self.source = source
        self.status = status
        self.id = id
        self.error = error
    }
}

/// The outcome of an import.
public struct ImportReport: Sendable, Hashable {
    public var imported = 0
    public var skipped = 0
    public var failed = 0
    /// Every poster in source order, or only the failures when the import was run with
    /// `ImportOptions.listsEveryItem` off.
    public var items: [ImportItem] = []

    /// Creates an empty report.
    public init() {}

    /// True when nothing failed.
    public var succeeded: Bool { failed == 0 }

    mutating func record(_ item: ImportItem, listed: Bool) {
        switch item.status {
        case .imported: imported += 1
        case .skipped: skipped += 1
        case .failed: failed += 1
        }
        if listed || item.status == .failed { items.append(item) }
    }
}

/// How far an import has come, reported while it runs.
public struct ImportProgress: Sendable, Hashable {
    /// Folders or lines dealt with (their images prepared, or failed), of `total`.
    public var done: Int
    public var total: Int
    /// Distinct images read so far (each decoded at most once, or recognised as stored).
    public var images: Int
    /// Time since the import started.
    public var elapsed: Duration

    /// Creates a progress snapshot.
    public init(done: Int, total: Int, images: Int, elapsed: Duration) {
        self.done = done
        self.total = total
        self.images = images
        self.elapsed = elapsed
    }

    /// Seconds since the start.
    public var seconds: Double {
        let (whole, fraction) = elapsed.components
        return Double(whole) + Double(fraction) / 1e18
    }

    /// Images per second so far.
    public var imagesPerSecond: Double { seconds > 0 ? Double(images) / seconds : 0 }

    /// Seconds left at the pace so far; nil until something is done.
    public var remainingSeconds: Double? {
        guard done > 0, seconds > 0 else { return nil }
        return seconds / Double(done) * Double(max(0, total - done))
    }
}
