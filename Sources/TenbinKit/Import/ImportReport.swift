/// What happened to one poster of an import.
package enum ImportStatus: String, Sendable, CaseIterable {
    /// Added to the board (in a dry run: would be added).
    case imported
    /// Identical to a poster already on the board (same two images, contents and hashtags),
    /// or to one earlier in the same import: not added again.
    case skipped
    /// Could not be imported; the rest of the import went on.
    case failed
}

/// One poster of an import, as the report lists it.
package struct ImportItem: Sendable, Hashable {
    /// `DIR/name` for a poster folder, `MANIFEST:LINE` for a manifest line.
    package let source: String
    package let status: ImportStatus
    /// For `imported`, the new poster's id; for `skipped`, the id of the identical poster
    /// already stored. Nil for failures, and in a dry run for posters not yet stored.
    package let id: Int64?
    /// Why a `failed` item failed, as one sentence naming the file; nil otherwise.
    package let error: String?

    /// Creates a report item.
    package init(source: String, status: ImportStatus, id: Int64? = nil, error: String? = nil) {
        self.source = source
        self.status = status
        self.id = id
        self.error = error
    }
}

/// The outcome of an import.
package struct ImportReport: Sendable, Hashable {
    package var imported = 0
    package var skipped = 0
    package var failed = 0
    /// Every poster in source order, or only the failures when the import was run with
    /// `ImportOptions.listsEveryItem` off.
    package var items: [ImportItem] = []

    /// Creates an empty report.
    package init() {}

    /// True when nothing failed.
    package var succeeded: Bool { failed == 0 }

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
package struct ImportProgress: Sendable, Hashable {
    /// Folders or lines dealt with (their images prepared, or failed), of `total`.
    package var done: Int
    package var total: Int
    /// Distinct images read so far (each decoded at most once, or recognised as stored).
    package var images: Int
    /// Time since the import started.
    package var elapsed: Duration

    /// Creates a progress snapshot.
    package init(done: Int, total: Int, images: Int, elapsed: Duration) {
        self.done = done
        self.total = total
        self.images = images
        self.elapsed = elapsed
    }

    /// Seconds since the start.
    package var seconds: Double {
        let (whole, fraction) = elapsed.components
        return Double(whole) + Double(fraction) / 1e18
    }

    /// Images per second so far.
    package var imagesPerSecond: Double { seconds > 0 ? Double(images) / seconds : 0 }

    /// Seconds left at the pace so far; nil until something is done.
    package var remainingSeconds: Double? {
        guard done > 0, seconds > 0 else { return nil }
        return seconds / Double(done) * Double(max(0, total - done))
    }
}
