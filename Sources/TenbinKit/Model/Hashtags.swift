/// Normalisation of the hashtags a poster is posted with.
public enum Hashtags {
    /// Trims each tag, drops one leading `#` or full-width `＃`, drops empty tags and later
    /// duplicates, keeping the first occurrence's position.
    public static func normalize<S: Sequence>(_ tags: S) -> [String] where S.Element: StringProtocol {
        var seen: Set<String> = []
        var result: [String] = []
        for raw in tags {
            var tag = Substring(raw).trimmingWhitespace()
            if let first = tag.first, first == "#" || first == "＃" {
                tag = tag.dropFirst().trimmingWhitespace()
            }
            // Control characters would break a terminal listing and mean nothing in a tag.
            let cleaned = String(String.UnicodeScalarView(tag.unicodeScalars.filter { $0.properties.generalCategory != .control }))
            guard !cleaned.isEmpty, seen.insert(cleaned).inserted else { continue }
            result.append(cleaned)
        }
        return result
    }
}

extension Substring {
    /// The substring without leading and trailing white space (Unicode's, U+3000 included).
    func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0.isWhitespace }
        guard let start = firstIndex(where: { !isSpace($0) }) else { return self[endIndex...] }
        let end = lastIndex(where: { !isSpace($0) })!  // exists: `start` is such an index
        return self[start...end]
    }
}
