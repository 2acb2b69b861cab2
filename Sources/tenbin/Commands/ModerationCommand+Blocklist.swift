import TenbinKit

/// `tenbin moderation blocklist list|add FILE…|remove ID [--note TEXT] [--json]`: the image
/// blocklist (see ``Board/blockImages(files:note:)``).
extension ModerationCommand {
    /// Runs `blocklist` with its words (`list`, `add FILE…` or `remove ID`).
    static func blocklist(_ words: [String], note: String?, json: Bool, context: Context) throws -> Int32 {
        guard let verb = words.first else { throw UsageError("missing a blocklist action: list, add or remove", command: spec) }
        let words = ["blocklist"] + words
        let rest = Array(words.dropFirst(2))
        switch verb {
        case "list":
            guard rest.isEmpty else { throw UsageError("'blocklist list' takes no arguments", command: spec) }
            let entries = try context.withBoard(.read) { try $0.blockedImages() }
            if json {
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
            for entry in added { Output.line(json ? JSON.blockedImage(entry) : "Blocked #\(entry.id): \(line(entry))") }
        case "remove":
            guard rest.count == 1 else { throw UsageError("'blocklist remove' takes one entry ID", command: spec) }
            guard let id = Int64(rest[0]), id >= 1 else {
                throw UsageError("'\(rest[0].prefix(40))' is not a blocklist entry id (a whole number from 1)", command: spec)
            }
            let removed = try context.withBoard(.write) { try $0.unblockImage(id: id) }
            Output.line(json ? JSON.blockedImage(removed) : "Removed #\(removed.id) from the image blocklist.")
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
