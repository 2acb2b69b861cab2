/// A `tenbin` subcommand: its spec, and how it runs on parsed arguments.
protocol Command: Sendable {
    static var spec: CommandSpec { get }
    /// Runs the command and returns the exit status; throws `UsageError` for exit 64 and
    /// anything else for exit 1.
    static func run(_ arguments: ParsedArguments, context: Context) throws -> Int32
    /// This invocation's work when it has to await (drawing images loads them in parallel),
    /// or nil to `run` it. main.swift starts the concurrency runtime only for such work, so
    /// every other path (`tenbin vote` above all) starts as fast as before.
    static func asyncWork(_ arguments: ParsedArguments, context: Context) throws -> AsyncWork?
}

/// A command's work that awaits; the same contract as `Command.run`.
typealias AsyncWork = @Sendable () async throws -> Int32

extension Command {
    /// Most commands never await.
    static func asyncWork(_ arguments: ParsedArguments, context: Context) throws -> AsyncWork? { nil }
}

/// Every subcommand, in the order help lists them.
let allCommands: [any Command.Type] = [
    PostCommand.self, VoteCommand.self, ListCommand.self, ShowCommand.self, ImageCommand.self,
    DeleteCommand.self, GCCommand.self, CheckCommand.self, ImportCommand.self,
]
