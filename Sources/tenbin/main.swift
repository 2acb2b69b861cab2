import Glibc
import TenbinKit
import TenbinSQLite

/// Parses the global options and the subcommand, runs it, and turns every outcome into
/// output and an exit status. The only place tenbin exits.
func runTenbin(_ rawArguments: [String], environment: [String: String]) -> Int32 {
    var arguments = rawArguments
    // `--store` and `--database` may stand before the subcommand too; they are handed to the
    // subcommand, which parses them once, with its own options.
    var forwarded: [String] = []
    // Global options come before the subcommand.
    while let first = arguments.first, first.hasPrefix("-") {
        switch first {
        case "--version":
            Output.line(Help.version)
            return 0
        case "-h", "--help":
            Output.line(Help.general)
            return 0
        case "--store", "--database":
            guard arguments.count >= 2 else {
                return usageFailure(UsageError("missing value for '\(first) \(first == "--store" ? "DIR" : "URL")'"))
            }
            forwarded += arguments[0...1]
            arguments.removeFirst(2)
        case let option where option.hasPrefix("--store=") || option.hasPrefix("--database="):
            forwarded.append(option)
            arguments.removeFirst()
        default:
            let name = first.split(separator: "=", maxSplits: 1).first.map(String.init) ?? first
            let suggestion = Suggestion.closest(to: name, among: ["--store", "--database", "--version", "--help"])
            return usageFailure(UsageError("unknown option '\(first)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")))
        }
    }
    guard let name = arguments.first else {
        Errors.write(Help.general)
        return EX_USAGE
    }
    arguments.removeFirst()
    if name == "help" {
        guard let topic = arguments.first else {
            Output.line(Help.general)
            return 0
        }
        guard let command = allCommands.first(where: { $0.spec.name == topic }) else {
            return usageFailure(unknownSubcommand(topic))
        }
        Output.line(Help.of(command))
        return 0
    }
    guard let command = allCommands.first(where: { $0.spec.name == name }) else {
        return usageFailure(unknownSubcommand(name))
    }
    return command.main(forwarded + arguments, environment: environment)
}

/// The error for a subcommand tenbin does not have, suggesting the one probably meant.
func unknownSubcommand(_ name: String) -> UsageError {
    let suggestion = Suggestion.closest(to: name, among: allCommands.map { $0.spec.name } + ["help"])
    return UsageError("unknown subcommand '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? ""))
}

/// Reports a command's error: usage errors with the usage line (exit 64, `EX_USAGE`), others
/// as one `Error:` line with the command line's own hint (exit 1, whatever their kind: scripts
/// tell kinds apart by the message, or through the HTTP API's statuses).
func failure(_ error: any Error, command spec: CommandSpec) -> Int32 {
    if var error = error as? UsageError {
        if error.command == nil { error.command = spec }
        return usageFailure(error)
    }
    Errors.write("Error: \(error)" + ErrorHint.of(error))
    return 1
}

func usageFailure(_ error: UsageError) -> Int32 {
    Errors.write("Error: \(error.message)")
    if let spec = error.command {
        Errors.write("Usage: \(spec.usageLine)\n  See 'tenbin help \(spec.name)'.")
    } else {
        Errors.write("Usage: tenbin [--store DIR] <subcommand>\n  See 'tenbin --help'.")
    }
    return EX_USAGE
}

// SIGPIPE would kill tenbin silently when its output is piped into `head`; a failed write
// is handled where it happens instead.
_ = signal(SIGPIPE, SIG_IGN)
// Past a file-size limit (ulimit -f) the kernel would kill tenbin mid-write; ignored, the
// write fails with EFBIG and is reported like a full disk, leaving nothing half-written.
_ = signal(SIGXFSZ, SIG_IGN)
// A command reads a few pages of its store and exits: read, not mapped (`tenbin serve`, which
// reads on for as long as it runs, maps its store again).
SQLiteStore.mapDatabaseFiles(false)
var environment: [String: String] = [:]
var cursor = environ
while let entry = cursor.pointee {
    let text = String(cString: entry)
    if let equals = text.firstIndex(of: "=") {
        environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
    }
    cursor += 1
}
/// Flushes what was printed and exits.
func finish(_ status: Int32) -> Never {
    _ = fflush(nil)  // nothing more can be reported if stdout is gone
    exit(status)
}

/// The first argument that is not UTF-8 (Swift's `CommandLine.arguments` would have replaced
/// its bad bytes with U+FFFD, so a Latin-1 or Shift_JIS file name named a file that does not
/// exist), shown with those replacements.
func argumentNotUTF8() -> String? {
    // A program may start tenbin with no arguments at all, not even its name.
    for index in 1..<max(1, Int(CommandLine.argc)) {
        guard let raw = CommandLine.unsafeArgv[index], String(validatingCString: raw) == nil else { continue }
        return String(cString: raw)
    }
    return nil
}

if let bad = argumentNotUTF8() {
    finish(
        usageFailure(
            UsageError(
                "the argument '\(bad)' is not UTF-8 text (a file name in another encoding? rename it to UTF-8, for example with convmv)"
            )))
}
finish(runTenbin(Array(CommandLine.arguments.dropFirst()), environment: environment))
