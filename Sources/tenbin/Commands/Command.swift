/// A `tenbin` subcommand: its spec, its options, and how it runs on parsed arguments.
protocol Command: Sendable {
    /// The options it declares, beyond ``CommonOptions``.
    associatedtype Options: OptionGroup = NoOptions

    static var spec: CommandSpec { get }
    /// Runs the command and returns the exit status; throws `UsageError` for exit 64 and
    /// anything else for a failure (exit 1, see ``failure(_:command:)``).
    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32
}

extension Command {
    /// Every option it takes, its own first, as help lists them.
    static var options: [CommandSpec.Option] { Options.declarations + CommonOptions.declarations }

    /// Its positional arguments, in order.
    static var arguments: [CommandSpec.Argument] { Options.argumentDeclarations }

    /// Parses `arguments` (with the global `--store` and `--database` given before the
    /// subcommand among them), then prints help or runs the command; returns the exit status.
    static func main(_ arguments: [String], environment: [String: String]) -> Int32 {
        do {
            let parsed = try ParsedArguments<Options>(arguments, spec: spec)
            if parsed.common.help {
                Output.line(Help.of(self))
                return 0
            }
            var context = Context(storeOption: try parsed.common.store, environment: environment)
            try context.choose(database: parsed.common.database, poolSize: parsed.common.databasePool)
            return try run(parsed, context: context)
        } catch {
            return failure(error, command: spec)
        }
    }
}

/// Every subcommand, in the order help lists them.
let allCommands: [any Command.Type] = [
    PostCommand.self, VoteCommand.self, ListCommand.self, ShowCommand.self, ImageCommand.self,
    EditCommand.self, DeleteCommand.self, ReportCommand.self, ModerationCommand.self, GCCommand.self, CheckCommand.self, SearchCommand.self,
    ImportCommand.self,
    WatchCommand.self, ServeCommand.self, MigrateCommand.self, CopyCommand.self, BackupCommand.self,
    ExportCommand.self, TagCommand.self,
]
