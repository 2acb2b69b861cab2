import TenbinKit

/// `tenbin list [--sort new|popular|trending] [--limit N] [--offset N] [--json] [--images | --no-images] …`
enum ListCommand: Command {
    static let spec = CommandSpec(
        name: "list",
        abstract: "List posters, newest or most voted first.",
        usage: "[--sort new|popular|trending] [--limit N] [--offset N] [--json] [--images | --no-images] [--cache-mb MB] [--cache-count N]",
    )

    struct Options: OptionGroup {
        var feed = FeedOptions()
        var json = Flag.json("Print a JSON array of posters.")
        var drawing = DrawingOptions.Group()
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        let page = try FeedOptions.parse(arguments.feed)
        return try context.withBoard(.read) { board in
            let posters = try board.posters(order: page.order, limit: page.limit, offset: page.offset)
            return try PosterImages.printPage(posters, board: board, json: arguments.json, drawing: arguments.drawing, context: context)
        }
    }
}

/// The paging options of every command that lists posters.
struct FeedOptions: OptionGroup {
    var sort = Option<FeedOrder>.sort
    var limit = Option.integer(["--limit"], value: "N", help: "At most N posters.", in: 1...1_000_000, default: 20)
    var offset = Option.integer(["--offset"], value: "N", help: "Skip the first N posters.", in: 0...Int(Int32.max), default: 0)

    static func parse(_ arguments: ParsedArguments<FeedOptions>) throws -> (order: FeedOrder, limit: Int, offset: Int) {
        (try arguments.sort, try arguments.limit, try arguments.offset)
    }
}

extension Option where Value == FeedOrder {
    /// `--sort new|popular|trending`, for every command that shows a feed.
    static var sort: Self {
        .choice(
            ["--sort"], value: "new|popular|trending",
            help:
                "new: newest first; popular: most votes first; trending: most recent votes first (a vote's weight halves every 24 hours).",
            default: .new)
    }
}
