import Dispatch
import Glibc
import TenbinKit

/// `tenbin import DIR|MANIFEST.jsonl [--jobs N] [--json] [--dry-run]`
enum ImportCommand: Command {
    static let spec = CommandSpec(
        name: "import",
        abstract: "Import a folder of poster folders, or a JSON Lines manifest.",
        usage: "DIR|MANIFEST.jsonl [--jobs N] [--json] [--dry-run]",
        discussion: """
            In a poster folder, the JPEG and PNG files (recognised by content), sorted by name, are
            image 1 and image 2. In post.txt, lines of only #hashtags give the hashtags; the other
            lines are the question. A poster identical to one on the board (same images, text and
            hashtags) is skipped, so importing again adds nothing. A folder or line that fails is
            reported and the rest goes on. Exits 0 when nothing failed, 1 otherwise.
            """
    )

    struct Options: OptionGroup {
        var source = Argument.text(
            "DIR", help: "A folder whose subfolders each hold a poster's two images and an optional post.txt.",
            more: [("MANIFEST.jsonl", "A file with one poster per line: {\"image1\", \"image2\", \"contents\", \"hashtags\"}.")])
        var jobs = Option.integer(
            ["--jobs", "-j"], value: "N", help: "Images re-encoded at once.", in: 1...256, default: ImportOptions.defaultJobs,
            shown: "the number of cores")
        var json = Flag.json("Print the report as JSON.")
        var dryRun = Flag(["--dry-run"], help: "Check and re-encode everything, but write nothing.")
        var image = ImageOptions()
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        let (limits, encoding) = try ImageOptions.parse(arguments.image)
        let dryRun = arguments.dryRun
        let json = arguments.json
        let options = ImportOptions(
            jobs: try arguments.jobs, dryRun: dryRun, listsEveryItem: json)
        let source: ImportSource
        do {
            source = try ImportSource.at(try arguments.source)
        } catch let error as ImportError where error.isNotASource {
            // Naming the wrong kind of file is a usage mistake: one line, no usage text.
            Errors.write("Error: \(error)")
            return EX_USAGE
        }
        returnLargeBuffersPromptly()
        // Loading libcrypto and OpenSSL's set-up for its first digest (≈ 1.7 ms, CCrypto loads it on
        // first use) would come before the first image's hash, with both jobs waiting; begun
        // here on another core, it overlaps creating and opening the store, which wait on the disk.
        let hashReady = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = Digest(of: [])
            hashReady.signal()
        }
        // Never exit while that thread is still in OpenSSL's set-up, which races its exit handler.
        defer { hashReady.wait() }
        if !dryRun { context.noteReadingsOff() }
        let board = try context.board(dryRun ? .read : .create, limits: limits, encoding: encoding)
        // The store closes (and checkpoints) here, before tenbin exits, once the import has ended.
        defer { board.close() }
        let line = ProgressLine(enabled: isatty(STDERR_FILENO) == 1, environment: context.environment)
        let markers = context.markers
        markers.reach("import:begin")
        let report = try Blocking.run { [board] in
            try await Importer(board: board, options: options).run(source) { progress in
                line.show(progress)
                markers.reach("import:progress \(progress.done)/\(progress.total)")
            }
        }
        markers.reach("import:end")
        line.finish()
        if json {
            Output.line(JSON.importReport(report))
        } else {
            for item in report.items where item.status == .failed {
                Errors.write("Error: \(item.source): \(item.error ?? "failed")")
            }
            let total = report.imported + report.skipped + report.failed
            let nothing = "Nothing to import: \(SafeText.terminal(source.path)) holds no posters."
            Output.line(total == 0 ? nothing : summary(report, dryRun: dryRun))
        }
        return report.succeeded ? 0 : 1
    }

    static func summary(_ report: ImportReport, dryRun: Bool) -> String {
        let failed = report.failed == 0 ? "nothing failed" : "\(report.failed) failed"
        let imported = Plural.count(report.imported, "poster")
        if dryRun {
            return "Dry run: would import \(imported), skip \(report.skipped) already on the board; \(failed). Nothing was written."
        }
        return "Imported \(imported), skipped \(report.skipped) already on the board; \(failed)."
    }

    /// glibc raises its mmap threshold after a large free, after which decoded photos (tens of
    /// MB each) are carved from per-thread heaps that keep their pages: with two jobs that is
    /// ~50 MB more peak memory. A fixed 1 MiB threshold maps every pixel buffer on its own and
    /// gives it back when freed.
    ///
    /// Every thread keeps its own arena, manifests included: imports once limited the process
    /// to one, because commits hopped between pool threads and left SQLite's freed memory in
    /// each one's arena; the reading and the committing thread then waited on each other's
    /// every allocation (about two lock waits per poster). Commits now run on one thread of
    /// their own (`SerialThread`), and a million-line manifest imports with 11–16 % less CPU
    /// for about 40 MB more peak memory, the arenas' free pages being given back after each
    /// commit (`MallocTuning.giveBackFreePages`; docs/benchmarks.md).
    private static func returnLargeBuffersPromptly() {
        MallocTuning.mapLargeBuffersOnTheirOwn()
    }
}
