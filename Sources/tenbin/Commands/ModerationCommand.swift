import TenbinKit

/// `tenbin moderation blocklist list|add FILE…|remove ID [--note TEXT] [--json]`
enum ModerationCommand: Command {
    static let spec = CommandSpec(
        name: "moderation",
        abstract: "Moderate the board: the image blocklist.",
        usage: "blocklist list [--json] | blocklist add FILE... [--note TEXT] [--json] | blocklist remove ID [--json]",
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
        guard words.count >= 2 else { throw UsageError("missing a blocklist action: list, add or remove", command: spec) }
        let rest = Array(words.dropFirst(2))
        let note = try arguments.note
        switch words[1] {
        case "list":
            guard rest.isEmpty else { throw UsageError("'blocklist list' takes no arguments", command: spec) }
            let entries = try context.withBoard(.read) { try $0.blockedImages() }
            if arguments.json {
                Output.line(JSON.blockedImages(entries))
            } else if entries.isEmpty {
                Output.line("The image blocklist is empty.")
            } else {
                for entry in entries { Output.line(line(entry)) }
            }
        case "add":
            guard !rest.isEmpty else { throw UsageError("'blocklist add' needs at least one FILE", command: spec) }
            // Every file is read and decoded before anything is written: a bad file lists none.
            let added = try context.withBoard(.create) { try $0.blockImages(files: rest, note: note) }
            for entry in added { Output.line(arguments.json ? JSON.blockedImage(entry) : "Blocked #\(entry.id): \(line(entry))") }
        case "remove":
            guard rest.count == 1 else { throw UsageError("'blocklist remove' takes one entry ID", command: spec) }
            guard let id = Int64(rest[0]), id >= 1 else {
                throw UsageError("'\(rest[0].prefix(40))' is not a blocklist entry id (a whole number from 1)", command: spec)
            }
            let removed = try context.withBoard(.write) { try $0.unblockImage(id: id) }
            Output.line(arguments.json ? JSON.blockedImage(removed) : "Removed #\(removed.id) from the image blocklist.")
        default:
            throw UsageError("'\(words[1].prefix(40))' is not a blocklist action; use list, add or remove", command: spec)
        }
        return 0
    }

    /// `#3  2026-12-04T22:40:00Z  phash 8f3c…  sha256 1a2b…  poster #12, image 1`.
    private static func line(_ entry: BlockedImage) -> String {
        let hash = entry.perceptualHash.map { "phash \($0)" } ?? "phash none (too plain; exact copies only)"
        return "#\(entry.id)  \(entry.createdAt)  \(hash)  sha256 \(entry.digest.hex.prefix(16))…  \(SafeText.terminal(entry.note))"
    }
}
