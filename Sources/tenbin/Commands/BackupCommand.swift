import Glibc
import TenbinKit

/// `tenbin backup --to DIR`
enum BackupCommand: Command {
    static let spec = CommandSpec(
        name: "backup",
        abstract: "Write a consistent backup of a live board to a new store folder.",
        usage: "--to DIR [--json]",
        discussion: """
            Reads the board (the store folder, or the PostgreSQL database given by --database with its \
            images in --store) from one snapshot while votes and posts go on, and writes it to DIR as an \
            ordinary SQLite store folder: tenbin.sqlite and blobs/. Every vote answered before the backup \
            began is in it; nothing committed after its snapshot is. Image files are checked against their \
            names and given to DIR as hard links when DIR is on the same file system (blob files are never \
            changed in place), as copies otherwise. The backup is written beside DIR under a hidden name, \
            checked (tenbin check) and compared with the snapshot, and only then renamed to DIR; a backup \
            that fails leaves nothing. DIR must not exist, or be an empty folder. Restore with \
            tenbin copy --from DIR --to STORE (a new store folder or an empty PostgreSQL database).
            """
    )

    struct Options: OptionGroup {
        var to = Option.text(["--to"], value: "DIR", help: "The folder to write the backup to (new, or empty).")
        var batch = Option.integer(
            ["--batch"], value: "N", help: "Posters per transaction.", in: 1...100_000, default: CopyOptions().posterBatch)
        var json = Flag.json("Print a summary of the backup as JSON.")
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        guard let destination = try arguments.to, !destination.isEmpty else { throw UsageError("missing '--to DIR'", command: spec) }
        try checkDestination(destination)
        let location = try context.location()
        if location.database == nil && !FileSystem.exists(location.folder + "/tenbin.sqlite") {
            throw StoreError(.missing, at: location.folder)
        }
        let source = try location.open(.read)
        defer { source.close() }
        let work = workFolder(for: destination)
        var options = CopyOptions(posterBatch: try arguments.batch)
        options.linkFiles = true
        let copied: CopyCommand.Copied
        do {
            // The backup's board is closed before the rename (its write-ahead log folded into
            // tenbin.sqlite and removed).
            copied = try {
                let target = try BoardLocation(folder: work).open(.create)
                defer { target.close() }
                return try CopyCommand.run(from: source, to: target, options: options, command: "backup", context: context)
            }()
            guard rename(work, destination) == 0 else {
                throw CommandFailure("\(destination): cannot rename the finished backup to it: \(String(cString: strerror(errno)))")
            }
        } catch {
            removeTree(work)
            throw error
        }
        let report = copied.report
        let summary = copied.verified.target
        if arguments.json {
            Output.line(
                JSON.backupReport(
                    report, source: (source.store.location, copied.verified.source), backup: (destination, summary), seconds: copied.seconds
                ))
            return 0
        }
        let ids = summary.idRange.map { " (ids \($0.lowerBound)–\($0.upperBound))" } ?? ""
        let copies = report.filesWritten - report.filesLinked
        Output.line(
            "Backed up \(Plural.count(summary.posters, "poster"))\(ids) and \(Plural.count(summary.blobs, "blob row")) "
                + "from \(SafeText.terminal(source.store.location)) to \(SafeText.terminal(destination)) "
                + "in \(CopyCommand.tenths(copied.seconds)) s: \(Plural.count(report.filesLinked, "image file")) linked, "
                + "\(copies) copied; checked and equal to the snapshot (digest \(summary.shortDigest)).")
        return 0
    }

    /// Refuses a destination that holds anything: a backup never mixes with other files.
    static func checkDestination(_ path: String) throws {
        guard FileSystem.exists(path) else { return }
        guard FileSystem.isFolder(path) else { throw CommandFailure("\(path) is a file; a backup goes into a new or empty folder") }
        guard let folder = opendir(path) else {
            throw CommandFailure("\(path): cannot read the folder: \(String(cString: strerror(errno)))")
        }
        defer { _ = closedir(folder) }  // read-only: nothing to lose
        while let entry = readdir(folder) {
            let name = entry.name
            if name != "." && name != ".." { throw CommandFailure("\(path) is not empty; a backup goes into a new or empty folder") }
        }
    }

    /// `PARENT/.NAME.partial-PID`: where the backup is written, beside its destination so the
    /// last rename stays on one file system.
    static func workFolder(for destination: String) -> String {
        var trimmed = destination
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        let slash = trimmed.lastIndex(of: "/")
        let parent = slash.map { $0 == trimmed.startIndex ? "/" : String(trimmed[..<$0]) } ?? "."
        let name = slash.map { String(trimmed[trimmed.index(after: $0)...]) } ?? trimmed
        return "\(parent)/.\(name).partial-\(getpid())"
    }

    /// Removes a folder this command made, and everything in it (best effort: it is being
    /// removed because something already failed, and that failure is what gets reported).
    static func removeTree(_ path: String) {
        if let folder = opendir(path) {
            while let entry = readdir(folder) {
                let name = entry.name
                guard name != "." && name != ".." else { continue }
                let child = path + "/" + name
                if entry.pointee.d_type == UInt8(DT_DIR) { removeTree(child) } else { _ = unlink(child) }  // best effort, as above
            }
            _ = closedir(folder)  // read-only: nothing to lose
        }
        _ = rmdir(path)  // best effort, as above
    }
}
