import TenbinKit

/// `tenbin delete ID [--json]`
enum DeleteCommand: Command {
    static let spec = CommandSpec(
        name: "delete",
        abstract: "Delete a poster, and the images no other poster uses.",
        usage: "ID [--json]"
    )

    struct Options: OptionGroup {
        var id = Argument.posterID()
        var json = Flag.json("Print the deleted poster, as it last was, as JSON.")
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        let poster = try context.withBoard(.write) { try $0.delete(id: try arguments.id) }
        Output.line(arguments.json ? JSON.poster(poster) : "Deleted #\(poster.id).")
        return 0
    }
}
