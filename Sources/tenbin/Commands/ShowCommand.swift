import TenbinKit

/// `tenbin show ID [--json] [--images | --no-images] [--cache-mb MB] [--cache-count N]`
enum ShowCommand: Command {
    static let spec = CommandSpec(
        name: "show",
        abstract: "Show one poster.",
        usage: "ID [--json] [--images | --no-images] [--cache-mb MB] [--cache-count N]"
    )

    struct Options: OptionGroup {
        var id = Argument.posterID()
        var json = Flag.json("Print the poster as JSON.")
        var drawing = DrawingOptions.Group()
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        // Drawing images awaits their parallel loading; everything else stays synchronous.
        if try DrawingOptions.parse(arguments.drawing, context: context, json: arguments.json, byDefault: .onATruecolorTerminal).draw {
            try arguments.expectPositionals()
            return try context.withBoard(.read) { board in
                try Blocking.run { try await drawn(arguments, board: board, context: context) }
            }
        }
        try arguments.expectPositionals()
        let poster = try context.withBoard(.read) { try $0.poster(id: try arguments.id) }
        Output.line(arguments.json ? JSON.poster(poster) : context.formatter.detail(poster))
        return 0
    }

    /// Shows the poster with its images drawn (loading them awaits).
    static func drawn(_ arguments: ParsedArguments<Options>, board: Board, context: Context) async throws -> Int32 {
        let options = try DrawingOptions.parse(arguments.drawing, context: context, json: false, byDefault: .onATruecolorTerminal)
        let poster = try board.poster(id: try arguments.id)
        return PosterImages.print(await PosterImages.detail(poster, board: board, options: options, context: context))
    }
}
