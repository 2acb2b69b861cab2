import TenbinKit
import TenbinSQLite

/// `tenbin vote ID 1|2 [--times N] [--json]`
enum VoteCommand: Command {
    static let spec = CommandSpec(
        name: "vote",
        abstract: "Vote for one side of a poster.",
        usage: "ID 1|2 [--times N] [--json]",
        discussion: "Each vote is one SQL statement: any number of processes may vote at once and none is lost."
    )

    struct Options: OptionGroup {
        var id = Argument.posterID()
        var side = Argument.side(help: "The side to vote for.", what: "the side")
        var times = Option.integer(["--times"], value: "N", help: "Add N votes at once.", in: 1...VoteBatcher.maximumTimes, default: 1)
        var json = Flag.json("Print the poster with its new counts as JSON.")
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        let id = try arguments.id
        let side = try arguments.side
        let times = try arguments.times
        let poster = try context.withBoard(.write) { board in
            // One small commit, then exit: flushed in its commit, the log left for the next
            // process (two flushes instead of four; see docs/architecture.md).
            try (board.store as? SQLiteStore)?.leaveLogAtClose()
            return try board.vote(id: id, side: side, times: times)
        }
        Output.line(arguments.json ? JSON.poster(poster) : context.formatter.voteResult(poster))
        return 0
    }
}
