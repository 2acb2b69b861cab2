/// What a subcommand is, for help and usage lines: its name, what it does, how it is called.
/// Its options are declared as typed values in the command's ``OptionGroup``.
struct CommandSpec: Sendable {
    /// How one option appears in help and messages: its spellings, the name of its value (nil
    /// for a flag), and its help.
    struct Option: Sendable {
        let names: [String]
        let value: String?
        let help: String
        var repeatable = false

        /// The spelling used in messages ("--times").
        var primary: String { names.first { $0.hasPrefix("--") } ?? names[0] }
    }

    /// How one positional argument appears in help and messages (see ``ArgumentDeclaration``).
    struct Argument: Sendable {
        /// Its name in help and in "missing ID".
        let name: String
        let help: String
        /// Further help rows, for other forms of the same argument.
        var more: [(name: String, help: String)] = []
        /// Whether it takes every argument that remains.
        var isList = false
    }

    let name: String
    let abstract: String
    /// The arguments part of the usage line ("ID 1|2 [--times N] [--json]").
    let usage: String
    var discussion: String? = nil

    var usageLine: String { "tenbin \(name) \(usage)" }
}

/// A mistake in how tenbin was called: reported with the usage line, exit 64.
struct UsageError: Error {
    let message: String
    /// The subcommand whose usage to show, when known.
    var command: CommandSpec?

    init(_ message: String, command: CommandSpec? = nil) {
        self.message = message
        self.command = command
    }
}
