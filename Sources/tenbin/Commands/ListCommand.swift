import TenbinKit

/// `tenbin list [--sort new|popular] [--limit N] [--offset N] [--json] [--images | --no-images] …`
enum ListCommand: Command {
    static let spec = CommandSpec(
        name: "list",
        abstract: "List posters, newest or most voted first.",
        usage: "[--sort new|popular] [--limit N] [--offset N] [--json] [--images | --no-images] [--cache-mb MB] [--cache-count N]",
        options: FeedOptions.options + [.init(names: ["--json"], value: nil, help: "Print a JSON array of posters.")]
            + DrawingOptions.options
    )

    static func run(_ arguments: ParsedArguments, context: Context) throws -> Int32 {
        try arguments.expectPositionals(0...0)
        let page = try FeedOptions.parse(arguments)
        let board = try context.board(create: false)
        let posters = try board.posters(order: page.order, limit: page.limit, offset: page.offset)
        return try PosterImages.printPage(posters, board: board, arguments: arguments, context: context)
    }
}

/// The paging options of every command that lists posters.
enum FeedOptions {
    static let options: [CommandSpec.Option] = [
        .init(names: ["--sort"], value: "new|popular", help: "new: newest first (default); popular: most votes first."),
        .init(names: ["--limit"], value: "N", help: "At most N posters (default 20)."),
        .init(names: ["--offset"], value: "N", help: "Skip the first N posters (default 0)."),
    ]

    static func parse(_ arguments: ParsedArguments) throws -> (order: FeedOrder, limit: Int, offset: Int) {
        (
            try arguments.choice("--sort", default: FeedOrder.new),
            try arguments.integer("--limit", in: 1...1_000_000, default: 20),
            try arguments.integer("--offset", in: 0...Int(Int32.max), default: 0)
        )
    }
}
