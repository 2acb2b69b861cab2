import TenbinKit

#if canImport(Glibc)
    import Glibc
#endif

/// `tenbin moderation list|show|restore|hide|remove|log [ID] [--reason TEXT] [--as NAME] [--json]`,
/// and `tenbin moderation blocklist list|add FILE…|remove ID` (see ModerationCommand+Blocklist.swift)
enum ModerationCommand: Command {
    /// What `moderation` does, its first argument.
    enum Action: String, CaseIterable {
        case list, show, restore, hide, remove, log, blocklist
    }

    static let spec = CommandSpec(
        name: "moderation",
        abstract: "Review reported and hidden posters: list, show, restore, hide, remove, log; the image blocklist.",
        usage:
            "list | show ID | restore ID | hide ID | remove ID [--block-images] | log [ID] [--reason TEXT] [--as NAME] [--json] | blocklist list | blocklist add FILE... [--note TEXT] | blocklist remove ID",
        discussion: """
            list shows the review queue (hidden and reported posters, latest first); show one poster \
            with its reports, hidden or not; restore shows it again and clears its reports (the same \
            reporters cannot hide it again); hide hides it; remove deletes it and the images no other \
            poster uses; log lists the audit log, newest first (of one poster with an ID). Every \
            action is logged with --reason and your user name (or --as NAME). remove --block-images \
            also lists both images on the image blocklist. \
            The blocklist holds pictures no post may bring back: a post (tenbin post, tenbin import, or \
            tenbin serve's API and page) is refused when one of its images is a listed file byte for \
            byte, or when its perceptual hash (64 bits, from the decoded picture) is within a few bits \
            of an entry's, which catches re-encoded, resized and mildly cropped copies. 'blocklist add' \
            lists the pictures in FILE... (images tenbin reads); 'blocklist remove' takes entry ID off \
            the list. See docs/moderation.md.
            """
    )

    struct Options: OptionGroup {
        var action = Argument.text("ACTION", help: "list, show, restore, hide, remove, log or blocklist.")
        var id = Argument.list(
            "ID", help: "The poster's id (show, restore, hide, remove; optional for log); for blocklist: list, add FILE... or remove ID.")
        var reason = Option.text(["--reason"], value: "TEXT", help: "Why, for the audit log.")
        var note = Option.text(
            ["--note"], value: "TEXT", help: "With 'blocklist add': why the pictures are listed (the file's name when absent).")
        var actor = ModerationCommand.actorOption("Act as NAME in the audit log")
        var blockImages = Flag(["--block-images"], help: "With remove: also block both images from being posted again.")
        var limit = Option.integer(["--limit"], value: "N", help: "Log entries to show, 1 to 10000.", in: 1...10_000, default: 50)
        var json = Flag.json("Print the queue, the poster, or the log as JSON.")
    }

    /// The `--as NAME` option.
    static func actorOption(_ help: String) -> Option<String?> {
        Option.text(["--as"], value: "NAME", help: "\(help) (default: your user name).")
    }

    /// `--as`'s name, else the user's: `$USER`, `$LOGNAME`, or the account's name.
    static func actor(_ given: String?, context: Context) throws -> String {
        if let given { return given }
        for variable in ["USER", "LOGNAME"] {
            if let name = context.environment[variable], !name.isEmpty { return name }
        }
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return "uid \(getuid())"
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        let word = try arguments.action
        guard let action = Action(rawValue: word) else {
            throw UsageError(
                "'\(SafeText.terminal(word))' is not a moderation action; use one of \(Action.allCases.map(\.rawValue).joined(separator: ", "))",
                command: spec)
        }
        let ids = try arguments.id
        if action == .blocklist { return try blocklist(ids, note: try arguments.note, json: arguments.json, context: context) }
        if ids.count > 1 { throw UsageError("unexpected argument '\(SafeText.terminal(ids[1]))'", command: spec) }
        let id = try ids.first.map { text in
            guard let id = Int64(text), id >= 1 else {
                throw UsageError("'\(SafeText.terminal(text))' is not a poster id (a whole number from 1)", command: spec)
            }
            return id
        }
        switch action {
        case .list:
            if let id { throw UsageError("list takes no ID (show \(id) shows one poster)", command: spec) }
        case .log: break
        case .blocklist: break  // answered above
        case .show, .restore, .hide, .remove:
            if id == nil { throw UsageError("\(action.rawValue) needs the poster's ID", command: spec) }
        }
        if arguments.blockImages && action != .remove { throw UsageError("--block-images goes with remove only", command: spec) }
        let reason = try arguments.reason ?? ""
        let actor = try actor(arguments.actor, context: context)
        let limit = try arguments.limit
        let json = arguments.json
        let access: BoardLocation.Access = action == .list || action == .show || action == .log ? .read : .write
        try context.withBoard(access) { board in
            // Checked above: every action but list and log has an id.
            switch action {
            case .list: Output.line(json ? JSON.moderationQueue(try board.moderationQueue()) : queueText(try board.moderationQueue()))
            case .show: show(try board.moderationItem(id: id!), json: json, context: context)
            case .hide: show(try board.hide(id: id!, actor: actor, reason: reason), json: json, context: context, done: "Hid")
            case .restore: show(try board.restore(id: id!, actor: actor, reason: reason), json: json, context: context, done: "Restored")
            case .remove:
                let poster = try board.remove(
                    id: id!, actor: actor, reason: reason, options: RemoveOptions(blockImages: arguments.blockImages))
                Output.line(json ? JSON.poster(poster) : "Removed #\(poster.id).")
            case .log:
                let entries = try board.auditLog(posterID: id, limit: limit)
                Output.line(json ? JSON.auditLog(entries) : logText(entries))
            case .blocklist: break  // answered above
            }
        }
        return 0
    }

    private static func show(_ item: ModerationItem, json: Bool, context: Context, done: String? = nil) {
        guard !json else { return Output.line(JSON.moderationItem(item)) }
        var lines: [String] = []
        if let done { lines.append("\(done) #\(item.poster.id).") }
        lines.append(summary(item))
        lines.append(context.formatter.detail(item.poster))
        for report in item.reports {
            let note = report.note.isEmpty ? "" : ": \(SafeText.terminal(report.note))"
            lines.append("  \(report.createdAt) \(report.reason.rawValue)\(note)")
        }
        Output.line(lines.joined(separator: "\n"))
    }

    /// `#ID hidden since T · N reports (spam 2, illegal 1) · latest T`.
    private static func summary(_ item: ModerationItem) -> String {
        var parts = ["#\(item.poster.id)", item.hiddenSince.map { "hidden since \($0)" } ?? "shown"]
        let reasons = item.reasons.map { "\($0.reason.rawValue) \($0.count)" }.joined(separator: ", ")
        parts.append(Plural.count(item.reports.count, "report") + (reasons.isEmpty ? "" : " (\(reasons))"))
        if let latest = item.latest { parts.append("latest \(latest)") }
        return parts.joined(separator: " · ")
    }

    private static func queueText(_ items: [ModerationItem]) -> String {
        guard !items.isEmpty else { return "Nothing to review." }
        return items.map { summary($0) + " · " + SafeText.terminal(String($0.poster.contents.prefix(60))) }.joined(separator: "\n")
    }

    private static func logText(_ entries: [AuditEntry]) -> String {
        guard !entries.isEmpty else { return "The audit log is empty." }
        return entries.map { entry in
            let reason = entry.reason.isEmpty ? "" : ": \(SafeText.terminal(entry.reason))"
            return "\(entry.id) \(entry.at) \(SafeText.terminal(entry.actor)) \(entry.action.rawValue) #\(entry.posterID)\(reason)"
        }.joined(separator: "\n")
    }
}
