import TenbinKit

/// `tenbin gc`
enum GCCommand: Command {
    static let spec = CommandSpec(
        name: "gc",
        abstract: "Remove stored images no poster uses.",
        usage: "[--json]",
        discussion:
            "Also removes temporary files left by interrupted writes once they are an hour old, and preview cards of posters no longer on the board."
    )

    struct Options: OptionGroup {
        var json = Flag.json("Print what was removed as JSON.")
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        let report = try context.withBoard(.write) { try $0.collectGarbage() }
        if arguments.json {
            Output.line(JSON.garbageReport(report))
        } else {
            Output.line(
                "Removed \(Plural.count(report.removedBlobs.count, "unused blob")), \(Plural.count(report.removedBytes, "byte")), "
                    + "\(Plural.count(report.removedTemporaryFiles, "temporary file")) "
                    + "and \(Plural.count(report.removedCardFiles, "preview card file"))."
            )
        }
        return 0
    }
}
