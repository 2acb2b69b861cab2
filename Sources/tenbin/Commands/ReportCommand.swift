import TenbinKit

/// `tenbin report ID --reason spam|abuse|illegal|other [--note TEXT] [--as NAME] [--json]`
enum ReportCommand: Command {
    static let spec = CommandSpec(
        name: "report",
        abstract: "Report a poster; enough distinct reporters hide it until a moderator acts.",
        usage: "ID --reason spam|abuse|illegal|other [--note TEXT] [--as NAME] [--json]",
        discussion: """
            The reporter is your user name (or --as NAME), counted once per poster. When the \
            reporters who count reach --report-threshold, the poster is hidden from feeds, search \
            and its page until a moderator restores or removes it (see tenbin moderation and \
            docs/moderation.md).
            """
    )

    struct Options: OptionGroup {
        var id = Argument.posterID()
        var reason = Option.text(["--reason"], value: "REASON", help: "Why: spam, abuse, illegal or other (required).")
        var note = Option.text(
            ["--note"], value: "TEXT", help: "What a moderator should know (at most \(Board.maximumReportNote) characters).")
        var reporter = ModerationCommand.actorOption("Report as NAME")
        var reportThreshold = Option.integer(
            ["--report-threshold"], value: "N", help: "Distinct reporters that hide a poster, 1 to 1000.", in: 1...1000,
            default: Board.defaultReportThreshold)
        var json = Flag.json("Print the accepted report as JSON.")
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        let id = try arguments.id
        guard let text = try arguments.reason else {
            throw UsageError("--reason is required: spam, abuse, illegal or other", command: spec)
        }
        let reason: ReportReason
        do {
            reason = try ReportReason(parsing: text)
        } catch {
            throw UsageError(error.description, command: spec)
        }
        let reporter = try ModerationCommand.actor(arguments.reporter, context: context)
        let note = try arguments.note ?? ""
        let threshold = try arguments.reportThreshold
        let board = try context.board(.write, reportThreshold: threshold)
        defer { board.close() }
        try board.report(id: id, reason: reason, note: note, reporter: reporter)
        Output.line(arguments.json ? JSON.reportAccepted(poster: id, reason: reason) : "Reported #\(id) (\(reason.rawValue)).")
        return 0
    }
}
