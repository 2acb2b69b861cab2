import TenbinKit

/// `tenbin check`
enum CheckCommand: Command {
    static let spec = CommandSpec(
        name: "check",
        abstract: "Verify the store: database integrity, every blob re-hashed, every reference resolved.",
        usage: "[--repair] [--json]",
        discussion: """
            Exits 0 when the store is sound, 1 with one line per problem otherwise. --repair first \
            writes every poster's search key and index entries afresh from its text, which mends \
            every search problem check can find; a missing or corrupt image cannot be mended.
            """
    )

    struct Options: OptionGroup {
        var repair = Flag(["--repair"], help: "Rebuild search from the posters' text first, then check.")
        var json = Flag.json("Print the report as JSON.")
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        if arguments.repair { context.noteReadingsOff() }
        let report = try context.withBoard(arguments.repair ? .write : .read, noteIfMissing: false) {
            try $0.check(repairingSearch: arguments.repair)
        }
        if arguments.json {
            Output.line(JSON.checkReport(report))
        } else {
            if let rebuilt = report.searchRebuilt {
                Output.line("Rebuilt search from the text of \(Plural.count(rebuilt, "poster")).")
            }
            for note in report.notes { Output.line("note: " + SafeText.terminal(note)) }
            if report.isSound {
                Output.line("OK: \(Plural.count(report.posters, "poster")), \(Plural.count(report.blobs, "blob")), all sound.")
            } else {
                Errors.write(report.problems.map { "Error: \($0)" }.joined(separator: "\n"))
            }
        }
        return report.isSound ? 0 : 1
    }
}
