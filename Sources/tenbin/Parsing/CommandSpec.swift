/// What a subcommand accepts, written once and used for parsing and for help.
struct CommandSpec {
    /// One option: its spellings, the name of its value (nil for a flag), and its help.
    struct Option {
        let names: [String]
        let value: String?
        let help: String
        var repeatable = false

        /// The spelling used in messages ("--times").
        var primary: String { names.first { $0.hasPrefix("--") } ?? names[0] }
    }

    let name: String
    let abstract: String
    /// The arguments part of the usage line ("ID 1|2 [--times N] [--json]").
    let usage: String
    var arguments: [(name: String, help: String)] = []
    var options: [Option] = []
    var discussion: String? = nil

    /// Options every subcommand takes.
    static let common: [Option] = [
        Option(names: ["--store"], value: "DIR", help: "The store folder (default: $TENBIN_STORE, else ./Storage)."),
        Option(names: ["-h", "--help"], value: nil, help: "Show help information."),
    ]

    var allOptions: [Option] { options + Self.common }

    var usageLine: String { "tenbin \(name) \(usage)" }

    func option(named name: String) -> Option? {
        allOptions.first { $0.names.contains(name) }
    }
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
