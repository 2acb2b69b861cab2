import TenbinKit

/// `tenbin tag TAG [--limit N] [--json]`: a hashtag's posters trending first, with its totals.
enum TagCommand: Command {
    static let spec = CommandSpec(
        name: "tag",
        abstract: "Show a hashtag's posters, trending first, with their votes.",
        usage: "TAG [--limit N] [--json]"
    )

    struct Options: OptionGroup {
        var tag = Argument.text("TAG", help: "The hashtag, with or without its #; #Cats and #cats are one tag.")
        var limit = Option.integer(["--limit"], value: "N", help: "At most N posters.", in: 1...1_000_000, default: 20)
        var json = Flag.json("Print the tag's summary as JSON (its totals, its votes per day and the posters).")
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        let (tag, limit) = (try arguments.tag, try arguments.limit)
        let summary = try context.withBoard(.read) { try $0.tagSummary(tag, limit: limit) }
        if arguments.json {
            Output.line(JSON.tagSummary(summary))
            return 0
        }
        let posters = summary.posterCount == 1 ? "1 poster" : "\(summary.posterCount) posters"
        let votes = summary.totalVotes == 1 ? "1 vote" : "\(summary.totalVotes) votes"
        Output.line("#\(SafeText.terminal(summary.tag)) · \(posters) · \(votes) (\(summary.good1) : \(summary.good2))")
        if !summary.page.posters.isEmpty { Output.line(context.formatter.list(summary.page.posters)) }
        return 0
    }
}
