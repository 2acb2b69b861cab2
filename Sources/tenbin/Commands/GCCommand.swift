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
            Output.line(
                JSON.object([
                    "removedBlobs": String(report.removedBlobs.count), "removedBytes": String(report.removedBytes),
                    "removedTemporaryFiles": String(report.removedTemporaryFiles),
                ]))
        } else {
            Output.line(
                "Removed \(Plural.count(report.removedBlobs.count, "unused blob")), \(Plural.count(report.removedBytes, "byte")), "
                    + "and \(Plural.count(report.removedTemporaryFiles, "temporary file"))."
            )
        }
        return 0
    }
}
