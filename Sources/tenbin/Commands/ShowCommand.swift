import TenbinKit

/// `tenbin show ID [--json]`
enum ShowCommand: Command {
    static let spec = CommandSpec(
        name: "show",
        abstract: "Show one poster.",
        usage: "ID [--json]",
        arguments: [("ID", "The poster's id.")],
        options: [.init(names: ["--json"], value: nil, help: "Print the poster as JSON.")]
    )

    static func run(_ arguments: ParsedArguments, context: Context) throws -> Int32 {
        try arguments.expectPositionals(1...1)
        let poster = try context.board(create: false).poster(id: try arguments.posterID(at: 0))
        Output.line(arguments.flag("--json") ? JSON.poster(poster) : context.formatter.detail(poster))
        return 0
    }
}
