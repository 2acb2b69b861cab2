import TenbinKit

/// `tenbin gc`
enum GCCommand: Command {
    static let spec = CommandSpec(
        name: "gc",
        abstract: "Remove stored images no poster uses.",
        usage: "[--json]",
        options: [.init(names: ["--json"], value: nil, help: "Print what was removed as JSON.")],
        discussion: "Also removes temporary files left by interrupted writes once they are an hour old."
    )

    static func run(_ arguments: ParsedArguments, context: Context) throws -> Int32 {
        try arguments.expectPositionals(0...0)
        let report = try context.board(create: false).collectGarbage()
        if arguments.flag("--json") {
            Output.line(JSON.garbageReport(report))
        } else {
            Output.line(
                "Removed \(report.removedBlobs.count) unused blob(s), \(report.removedBytes) bytes, and \(report.removedTemporaryFiles) temporary file(s)."
            )
        }
        return 0
    }
}
