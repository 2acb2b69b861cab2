import TenbinKit

/// `tenbin edit ID [--text TEXT] [--tag TAG]… [--clear-tags] [--json]`
enum EditCommand: Command {
    static let spec = CommandSpec(
        name: "edit",
        abstract: "Change a poster's question and hashtags, keeping its id, images and votes.",
        usage: "ID [--text TEXT] [--tag TAG]... [--clear-tags] [--json]",
        discussion: """
            --text replaces the question (--text '' clears it); --tag replaces all hashtags with the \
            ones given; --clear-tags removes them. What is not given stays as it was. The search index \
            changes in the same transaction, and live feeds report the poster as modified.
            """
    )

    struct Options: OptionGroup {
        var id = Argument.posterID()
        var text = Option.text(["--text"], value: "TEXT", help: "The new question.")
        var tag = Option.repeated(["--tag"], value: "TAG", help: "A new hashtag (repeatable; replaces every hashtag).")
        var clearTags = Flag(["--clear-tags"], help: "Remove every hashtag.")
        var json = Flag.json("Print the edited poster as JSON.")
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        let id = try arguments.id
        let text = try arguments.text
        let tags = try arguments.tag
        if arguments.clearTags && !tags.isEmpty { throw UsageError("--clear-tags and --tag cannot be given together", command: spec) }
        guard text != nil || !tags.isEmpty || arguments.clearTags else {
            throw UsageError("nothing to change: give --text, --tag or --clear-tags", command: spec)
        }
        context.noteReadingsOff()
        let poster = try context.withBoard(.write) {
            try $0.edit(id: id, contents: text, hashtags: arguments.clearTags ? [] : (tags.isEmpty ? nil : tags))
        }
        Output.line(arguments.json ? JSON.poster(poster) : "Edited #\(poster.id).\n" + context.formatter.detail(poster))
        return 0
    }
}
