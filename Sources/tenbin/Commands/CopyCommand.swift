import Glibc
import TenbinKit
import TenbinPostgres
import TenbinSQLite

/// `tenbin copy --from STORE --to STORE`
enum CopyCommand: Command {
    static let spec = CommandSpec(
        name: "copy",
        abstract: "Copy a whole board to another store (SQLite to PostgreSQL and back), then verify it.",
        usage: "--from STORE --to STORE [--from-blobs DIR] [--to-blobs DIR] [--resume] [--batch N] [--json]",
        discussion: """
            A STORE is a store folder (SQLite: its tenbin.sqlite and blobs/) or a PostgreSQL \
            database (a postgres:// or postgresql:// URI, or a libpq 'key=value' string). A database's \
            images live in DIR/blobs, DIR being --from-blobs or --to-blobs, else --store, else \
            $TENBIN_STORE; one of them must be given. Posters keep their ids, votes, creation times and hashtags; \
            blob rows and search keys come along; images are written to the target's blob folder unless \
            it has them (a shared folder). The target must be empty; after an interrupted copy, run \
            the same command with --resume. The copy reads the source from one snapshot, so votes and \
            posts may go on meanwhile (the target holds the board as it was when the copy began). Then \
            the target is checked (tenbin check) and compared with that snapshot (counts and a digest \
            of every poster and blob row); exits 1 when they differ. A backup made by tenbin backup \
            is restored with tenbin copy --from BACKUP --to STORE.
            """
    )

    struct Options: OptionGroup {
        var from = Option.text(["--from"], value: "STORE", help: "The board to copy: a store folder or a PostgreSQL URI.")
        var to = Option.text(["--to"], value: "STORE", help: "Where to copy it: a store folder or a PostgreSQL URI (must be empty).")
        var fromBlobs = Option.text(
            ["--from-blobs"], value: "DIR", help: "For a PostgreSQL source: the folder whose blobs/ holds its images (default: --store).")
        var toBlobs = Option.text(
            ["--to-blobs"], value: "DIR", help: "For a PostgreSQL target: the folder whose blobs/ gets the images (default: --store).")
        var resume = Flag(["--resume"], help: "Continue an interrupted copy into the target it was writing.")
        var batch = Option.integer(
            ["--batch"], value: "N", help: "Posters per transaction.", in: 1...100_000, default: CopyOptions().posterBatch)
        var json = Flag.json("Print the summaries of both boards as JSON.")
    }

    /// One side of the copy, as the command line names it.
    enum Location: Equatable {
        case folder(String)
        case database(String)

        /// A PostgreSQL URI or `key=value` connection string is a database; anything else a folder.
        init(_ text: String) {
            let lowered = text.lowercased()
            if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
                self = .database(text)
            } else if let equals = text.firstIndex(of: "="), !text[..<equals].isEmpty,
                text[..<equals].allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_") })
            {
                self = .database(text)
            } else {
                self = .folder(text)
            }
        }
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        if arguments.common.isGiven(\.database) {
            throw UsageError("copy takes its stores from --from and --to, not --database", command: spec)
        }
        guard let fromText = try arguments.from, !fromText.isEmpty else { throw UsageError("missing '--from STORE'", command: spec) }
        guard let toText = try arguments.to, !toText.isEmpty else { throw UsageError("missing '--to STORE'", command: spec) }
        let from = Location(fromText)
        let to = Location(toText)
        for (option, location, name) in [(\Options.fromBlobs, from, "--from-blobs"), (\Options.toBlobs, to, "--to-blobs")] {
            if case .folder = location, arguments.isGiven(option) {
                throw UsageError("'\(name)' is for a PostgreSQL side: a store folder keeps its images in its own blobs/", command: spec)
            }
        }
        let options = CopyOptions(resume: arguments.resume, posterBatch: try arguments.batch)
        let source = try open(from, blobs: try arguments.fromBlobs, blobsOption: "--from-blobs", context: context, asTarget: false)
        defer { source.close() }
        if try sameStore(from, to, source: source.store) { throw CopyError.sameStore(source.store.location) }
        let target = try open(to, blobs: try arguments.toBlobs, blobsOption: "--to-blobs", context: context, asTarget: true)
        defer { target.close() }
        let copied = try run(from: source, to: target, options: options, command: "copy", context: context)
        if arguments.json {
            Output.line(
                JSON.copyReport(
                    copied.report, source: (source.store.location, copied.verified.source),
                    target: (target.store.location, copied.verified.target), seconds: copied.seconds))
            return 0
        }
        let report = copied.report
        let seconds = copied.seconds
        let verifying = copied.verifying
        let verified = copied.verified
        let shared = report.filesPresent > 0 && report.filesWritten == 0 ? " (the target's blob folder had them all)" : ""
        Output.line(
            "Copied \(Plural.count(report.postersCopied, "poster")) and \(Plural.count(report.blobRowsCopied, "blob row")) "
                + "from \(SafeText.terminal(source.store.location)) to \(SafeText.terminal(target.store.location)) "
                + "in \(tenths(seconds - verifying)) s; \(Plural.count(report.filesWritten, "image file")) written\(shared)."
                + (report.resumedAfter.map { " Resumed after poster \($0)." } ?? ""))
        let summary = verified.target
        let ids = summary.idRange.map { "ids \($0.lowerBound)–\($0.upperBound), " } ?? ""
        Output.line(
            "Verified: \(Plural.count(summary.posters, "poster")) (\(ids)digest \(summary.shortDigest)) and "
                + "\(Plural.count(summary.blobs, "blob row")) equal on both sides; the target's check found nothing wrong; "
                + "its next poster gets id \(summary.lastPosterID + 1) or higher (verified in \(tenths(verifying)) s).")
        return 0
    }

    /// What ``run(from:to:options:command:context:)`` did, and how long it took.
    struct Copied {
        let report: CopyReport
        let verified: (source: BoardSummary, target: BoardSummary, check: CheckReport)
        /// Seconds in all, and of them verifying.
        let seconds: Double
        let verifying: Double
    }

    /// Copies `source` into `target` from one snapshot, then verifies the target against that
    /// snapshot, showing progress on a terminal; `command` names the test markers
    /// (`copy:begin`, `backup:posters 2000`, …). The copy and `tenbin backup` both run this.
    static func run(from source: Board, to target: Board, options: CopyOptions, command: String, context: Context) throws -> Copied {
        let line = ProgressLine(enabled: isatty(STDERR_FILENO) == 1, environment: context.environment)
        let markers = context.markers
        let clock = ContinuousClock()
        let started = clock.now
        markers.reach("\(command):begin")
        try (target.store as? PostgresStore)?.beginBulkLoad()
        let report = try source.copy(to: target, options: options) { progress in
            let verb = command == "backup" ? "Backing up" : "Copying"
            line.show(text: "\(verb) \(progress.stage.rawValue): \(progress.done)" + (progress.total.map { "/\($0)" } ?? ""))
            markers.reach("\(command):\(progress.stage.rawValue) \(progress.done)")
        }
        line.show(text: "Building indexes…")
        (target.store as? PostgresStore)?.flushNotifications()
        try (target.store as? PostgresStore)?.finishBulkLoad()
        let copied = clock.now
        line.show(text: "Verifying the \(command)…")
        let verified = try target.verifyCopy(of: source, asRead: report.source)
        line.finish()
        markers.reach("\(command):end")
        func inSeconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        return Copied(report: report, verified: verified, seconds: inSeconds(clock.now - started), verifying: inSeconds(clock.now - copied))
    }

    /// `12.3`: seconds to a tenth.
    static func tenths(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// Opens one side. A source must exist and is only read (a PostgreSQL source at an older
    /// schema is refused, not upgraded); a target is created when missing. A database's blob
    /// folder is `blobs` (`blobsOption`), else `--store` or `$TENBIN_STORE`, and must be given.
    static func open(_ location: Location, blobs: String?, blobsOption: String, context: Context, asTarget: Bool) throws -> Board {
        switch location {
        case .folder(let path):
            if !asTarget && !FileSystem.exists(path + "/tenbin.sqlite") {
                if FileSystem.exists(path) && !FileSystem.isFolder(path) {
                    throw StoreError(.notAStore("it is a file, not a folder"), at: path)
                }
                throw StoreError(.missing, at: path)
            }
            return try BoardLocation(folder: path).open(asTarget ? .create : .read)
        case .database(let url):
            guard let folder = blobs ?? (context.storeGiven ? context.storePath : nil) else {
                throw UsageError(
                    "a PostgreSQL \(asTarget ? "target" : "source") needs its blob folder: give '\(blobsOption) DIR' (or --store DIR, or TENBIN_STORE)",
                    command: spec)
            }
            return try BoardLocation(folder: folder, database: url, poolSize: 2).open(asTarget ? .create : .read)
        }
    }

    /// Whether both sides name the same store: the same folder, or the same database.
    static func sameStore(_ from: Location, _ to: Location, source: any StoreBackend) throws -> Bool {
        switch (from, to) {
        case (.folder(let a), .folder(let b)):
            guard let left = realpath(a, nil) else { return false }
            defer { free(left) }
            guard let right = realpath(b, nil) else { return false }
            defer { free(right) }
            return String(cString: left) == String(cString: right)
        case (.database, .database(let url)):
            return try ConnectionTarget(url).description == source.location
        default:
            return false
        }
    }
}
