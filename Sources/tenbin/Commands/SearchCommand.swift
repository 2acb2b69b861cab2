import TenbinKit

/// `tenbin search WORDS… [--sort new|popular|trending] [--limit N] [--offset N] [--json] [--images | --no-images]`, and
/// `tenbin search --interactive [--debounce MS] [WORDS…]`
enum SearchCommand: Command {
    static let spec = CommandSpec(
        name: "search",
        abstract: "Find posters whose text or hashtags contain every word.",
        usage:
            "WORDS... [--sort new|popular|trending] [--limit N] [--offset N] [--json] [--images | --no-images] | -i [--debounce MS] [WORDS...]",
        discussion: """
            A poster matches when every word is part of its text or of one of its hashtags. Width,
            Latin case and hiragana/katakana are ignored (ＡＢＣ = abc, ｷﾉｺ = キノコ = きのこ), and a
            leading # or ＃ on a word is dropped. Words of one character work too. Put words that
            begin with '-' after '--'.

            With -i, results redraw as you type: up/down select, Enter prints the selected
            poster's id and exits 0, Esc or Ctrl-C exits 130.

            Exits 0 when posters were printed, 1 when nothing matched (as grep does), 64 for a
            usage error.
            """
    )

    struct Options: OptionGroup {
        var words = Argument.list("WORDS", help: "The words to find, as separate arguments or one with spaces.")
        var feed = FeedOptions()
        var json = Flag.json("Print a JSON array of posters.")
        var interactive = Flag(["-i", "--interactive"], help: "Search as you type in the terminal.")
        var debounce = Option.integer(
            ["--debounce"], value: "MS", help: "With -i: search once typing pauses this long.", in: 0...60_000, default: 500)
        var drawing = DrawingOptions.Group()
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        let words = try arguments.words
        let text = words.joined(separator: " ")
        let page = try FeedOptions.parse(arguments.feed)
        if arguments.interactive {
            if arguments.json { throw UsageError("'--json' cannot be used with '--interactive'", command: spec) }
            let debounce = try arguments.debounce
            return try context.withBoard(.read) { board in
                try InteractiveSearch(board: board, order: page.order, debounce: .milliseconds(debounce), context: context)
                    .run(initialQuery: text)
            }
        }
        if arguments.isGiven(\.debounce) { throw UsageError("'--debounce' needs '--interactive'", command: spec) }
        guard !SearchQuery.split(text).isEmpty else {
            throw UsageError(words.isEmpty ? "missing WORDS" : "the search words are only white space", command: spec)
        }
        let (posters, status) = try context.withBoard(.read) { board in
            let posters = try board.search(query: text, order: page.order, limit: page.limit, offset: page.offset)
            return (
                posters,
                try PosterImages.printPage(posters, board: board, json: arguments.json, drawing: arguments.drawing, context: context)
            )
        }
        // Like grep: a search that found nothing exits 1, with no error line, so scripts can
        // write `if tenbin search 猫 >/dev/null; then …`.
        return posters.isEmpty ? 1 : status
    }
}
