/// A `tenbin` subcommand: its spec, and how it runs on parsed arguments.
protocol Command: Sendable {
    static var spec: CommandSpec { get }
    /// Runs the command and returns the exit status; throws `UsageError` for exit 64 and
    /// anything else for exit 1.
    static func run(_ arguments: ParsedArguments, context: Context) throws -> Int32
}

/// Every subcommand, in the order help lists them.
let allCommands: [any Command.Type] = [
    PostCommand.self, VoteCommand.self, ListCommand.self, ShowCommand.self, ImageCommand.self,
    DeleteCommand.self, GCCommand.self, CheckCommand.self, SearchCommand.self, ImportCommand.self, WatchCommand.self,
    ServeCommand.self,
]
