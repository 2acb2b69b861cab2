/// Normalisation of the hashtags a poster is posted with.
public enum Hashtags {
    /// Trims each tag, drops one leading `#` or full-width `＃`, drops empty tags and later
    /// duplicates, keeping the first occurrence's position.
    public static func normalize<S: Sequence>(_ tags: S) -> [String] where S.Element: StringProtocol {
        var seen: Set<String> = []
        var result: [String] = []
        for raw in tags {
            var tag = Substring(raw)
            if !tag.isTrimmed { tag = tag.trimmingWhitespace() }
            if let first = tag.first, first == "#" || first == "＃" {
                tag = tag.dropFirst().trimmingWhitespace()
            }
            // Control characters would break a terminal listing and mean nothing in a tag.
            let cleaned =
                tag.utf8.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }
                ? String(String.UnicodeScalarView(tag.unicodeScalars.filter { $0.properties.generalCategory != .control }))
                : String(tag)  // no C0 control, no DEL, and no C1 control (all of those are C2 80…9F in UTF-8)
            guard !cleaned.isEmpty, seen.insert(cleaned).inserted else { continue }
            result.append(cleaned)
        }
        return result
    }
}

extension Substring {
    /// Whether `trimmingWhitespace()` would return the substring unchanged, decided from its
    /// first and last scalars alone when they are common letters (ASCII graphic, kana, CJK
    /// ideographs, full-width ASCII); false means "not known", never "not trimmed".
    ///
    /// Such a scalar is not white space, and it is no extending mark: the character (grapheme
    /// cluster) it ends begins with it or with a prepended mark, which is not white space either.
    var isTrimmed: Bool {
        guard let first = unicodeScalars.first?.value, let last = unicodeScalars.last?.value else { return false }
        return Self.isPlainLetter(first) && Self.isPlainLetter(last)
    }

    private static func isPlainLetter(_ value: UInt32) -> Bool {
        switch value {
        case 0x21...0x7E, 0x3041...0x3096, 0x30A1...0x30FA, 0x4E00...0x9FFF, 0xFF01...0xFF5E: true
        default: false
        }
    }

    /// The substring without leading and trailing white space (Unicode's, U+3000 included).
    func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0.isWhitespace }
        guard let start = firstIndex(where: { !isSpace($0) }) else { return self[endIndex...] }
        let end = lastIndex(where: { !isSpace($0) })!  // exists: `start` is such an index
        return self[start...end]
    }
}
