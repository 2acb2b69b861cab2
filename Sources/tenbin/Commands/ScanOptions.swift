import TenbinKit

/// `--scan-command CMD` and `--scan-timeout SECONDS`, shared by `post` and `serve`: the
/// operator's program every post's images are handed to before it commits (see
/// docs/moderation.md, "Scanning images before they are stored").
struct ScanOptions: OptionGroup {
    var command = Option.text(
        ["--scan-command"], value: "CMD",
        help: "Hand each post's stored images to CMD (run by sh, paths appended) before it commits: exit 0 accepts, 1 refuses.")
    var timeout = Option.integer(
        ["--scan-timeout"], value: "SECONDS", help: "Seconds the scan command may run before the post is refused, 1 to 3600.",
        in: 1...3600, default: 10)

    /// The scanner the options describe, or nil without `--scan-command`.
    static func parse(_ arguments: ParsedArguments<ScanOptions>) throws -> ImageScanner? {
        guard let command = try arguments.command else { return nil }
        guard !command.allSatisfy(\.isWhitespace) else { throw UsageError("'--scan-command' needs a command, not an empty one") }
        return ImageScanner(command: command, timeoutSeconds: Double(try arguments.timeout))
    }
}
