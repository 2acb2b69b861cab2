import TenbinKit

/// Help text in swift-argument-parser's layout: OVERVIEW, USAGE, ARGUMENTS, OPTIONS.
enum Help {
    static let version = TenbinVersion.current

    static let overview = """
        OVERVIEW: tenbin — a two-choice voting board. Every poster shows two images, an optional
        question and hashtags; anyone may vote for either side as often as they like.
        """

    static var general: String {
        var lines = [overview, "", "USAGE: tenbin [--store DIR] [--database URL] <subcommand>", "", "OPTIONS:"]
        lines += table([
            ("--store DIR", "The store folder (default: $TENBIN_STORE, else ./Storage)."),
            ("--database URL", "A PostgreSQL database (default: $TENBIN_DATABASE_URL); --store then names the blob folder."),
            ("--version", "Show the version."),
            ("-h, --help", "Show help information."),
        ])
        lines += ["", "SUBCOMMANDS:"]
        lines += table(allCommands.map { ($0.spec.name, $0.spec.abstract) })
        lines += ["", "  See 'tenbin help <subcommand>' for detailed help."]
        return lines.joined(separator: "\n")
    }

    static func of(_ command: any Command.Type) -> String {
        let spec = command.spec
        var lines = ["OVERVIEW: \(spec.abstract)"]
        if let discussion = spec.discussion { lines += ["", discussion] }
        lines += ["", "USAGE: \(spec.usageLine)"]
        let arguments = command.arguments
        if !arguments.isEmpty {
            lines += ["", "ARGUMENTS:"] + table(arguments.flatMap { [($0.name, $0.help)] + $0.more })
        }
        lines += ["", "OPTIONS:"]
        lines += table(
            command.options.map { option in
                (option.names.joined(separator: ", ") + (option.value.map { " \($0)" } ?? ""), option.help)
            })
        return lines.joined(separator: "\n")
    }

    private static func table(_ rows: [(String, String)]) -> [String] {
        let width = min(24, (rows.map { $0.0.count }.max() ?? 0) + 2)
        return rows.map { name, help in
            name.count + 2 > width ? "  \(name)\n  \(String(repeating: " ", count: width))\(help)" : "  " + name.padding(width) + help
        }
    }
}
