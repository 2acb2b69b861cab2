extension JSON {
    /// A blocklist entry on one line: `{"id", "digest", "perceptualHash", "note", "createdAt"}`,
    /// the hash as 16 hexadecimal digits or null.
    public static func blockedImage(_ entry: BlockedImage) -> String {
        var writer = JSONWriter()
        writer.blockedImage(entry)
        return writer.text
    }

    /// An array of blocklist entries, one per line (`[]` when empty).
    public static func blockedImages(_ entries: [BlockedImage]) -> String {
        var writer = JSONWriter()
        writer.array(entries, layout: .oneItemPerLine) { $0.blockedImage($1) }
        return writer.text
    }
}

extension JSONWriter {
    /// See ``JSON/blockedImage(_:)``.
    package mutating func blockedImage(_ entry: BlockedImage) {
        object { json in
            json.field("id", entry.id)
            json.field("digest", entry.digest.hex)
            json.key("perceptualHash")
            if let hash = entry.perceptualHash { json.string(hash.description) } else { json.null() }
            json.field("note", entry.note)
            json.key("createdAt")
            json.timestamp(entry.createdAt)
        }
    }
}
