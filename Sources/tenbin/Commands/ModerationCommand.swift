import TenbinKit

/// `tenbin moderation blocklist list|add FILE…|remove ID [--note TEXT] [--json]`
enum ModerationCommand: Command {
    static let spec = CommandSpec(
        name: "moderation",
        abstract: "Moderate the board: the image blocklist.",
        usage: ModerationBlocklist.usage,
        discussion: """
            The blocklist holds pictures no post may bring back. A post (tenbin post, tenbin
            import, or tenbin serve's API and page) is refused when one of its images is a listed
            file byte for byte, or when it looks like one: its perceptual hash (64 bits, computed
            from the decoded picture) is within a few bits of the entry's, which catches
            re-encoded, resized and mildly cropped copies (docs/moderation.md). 'add' lists the
            pictures in FILE... (images tenbin reads); 'remove' takes entry ID off the list.
            """
    )

    struct Options: OptionGroup {
        var words = Argument.list(
            "blocklist ACTION [ARGUMENT...]", help: "'blocklist list', 'blocklist add FILE...' or 'blocklist remove ID'.")
        var note = Option.text(["--note"], value: "TEXT", help: "With 'add': why the pictures are listed (the file's name when absent).")
        var json = Flag.json("Print the entries listed, added or removed as JSON.")
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        let words = try arguments.words
        guard let group = words.first else { throw UsageError("missing what to moderate: 'blocklist'", command: spec) }
        guard group == "blocklist" else { throw UsageError("'\(group)' is not a moderation command; use 'blocklist'", command: spec) }
        try ModerationBlocklist.run(Array(words.dropFirst()), note: try arguments.note, json: arguments.json, context: context, spec: spec)
        return 0
    }
}
