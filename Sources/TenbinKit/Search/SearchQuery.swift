/// A parsed search: the normalised words a poster must all contain.
///
/// The text is split on any Unicode white space (U+3000 included), one leading `#` or `＃` is
/// dropped from each word (so a tapped hashtag and a typed one search alike), and each word is
/// normalised with ``SearchText/normalize(_:)``. Any text is a valid query; one with no words
/// left is empty and matches nothing.
public struct SearchQuery: Sendable, Hashable, CustomStringConvertible {
    /// The normalised words, each distinct and none inside another (such a word adds nothing:
    /// whatever contains the longer word contains it), longest first.
    public let words: [String]
    /// The text the query was parsed from.
    public let text: String

    /// Parses `text`.
    public init(_ text: String) {
        self.text = text
        var words: [String] = []
        for word in Self.split(text) {
            var raw = word
            if let first = raw.first, first == "#" || first == "＃" { raw = raw.dropFirst() }
            let normalized = SearchText.normalize(String(raw))
            if !normalized.isEmpty && !words.contains(normalized) { words.append(normalized) }
        }
        // Longest first: it is the most selective word, and a shorter word inside it is implied.
        words.sort { ($0.utf8.count, $0) > ($1.utf8.count, $1) }
        var kept: [String] = []
        for word in words where !kept.contains(where: { Self.contains($0, word) }) {
            kept.append(word)
        }
        self.words = kept
    }

    /// The query's words as typed: `text` split on Unicode white space, empty pieces dropped.
    public static func split(_ text: String) -> [Substring] {
        var words: [Substring] = []
        var start: String.Index?
        var index = text.startIndex
        let scalars = text.unicodeScalars
        while index < text.endIndex {
            let isSpace = scalars[index].properties.isWhitespace
            if isSpace, let begin = start {
                words.append(text[begin..<index])
                start = nil
            } else if !isSpace && start == nil {
                start = index
            }
            index = scalars.index(after: index)
        }
        if let begin = start { words.append(text[begin..<text.endIndex]) }
        return words
    }

    /// Whether the query has no words, so nothing matches it.
    public var isEmpty: Bool { words.isEmpty }

    /// Whether a stored search key contains every word (as UTF-8 bytes, as SQLite's `instr`
    /// and `LIKE` compare).
    func matches(key: String) -> Bool {
        var key = key
        return key.withUTF8 { haystack in
            words.allSatisfy { word in
                var word = word
                return word.withUTF8 { Self.contains(haystack, $0) }
            }
        }
    }

    /// Whether `needle`'s UTF-8 occurs in `haystack`'s.
    static func contains(_ haystack: String, _ needle: String) -> Bool {
        var haystack = haystack
        var needle = needle
        return haystack.withUTF8 { outer in needle.withUTF8 { contains(outer, $0) } }
    }

    /// Whether `needle` occurs in `haystack`.
    static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = needle.first else { return true }
        guard haystack.count >= needle.count else { return false }
        let last = haystack.count - needle.count
        var start = 0
        while start <= last {
            if haystack[start] == first {
                var offset = 1
                while offset < needle.count && haystack[start + offset] == needle[offset] { offset += 1 }
                if offset == needle.count { return true }
            }
            start += 1
        }
        return false
    }

    /// The normalised words, space-separated.
    public var description: String { words.joined(separator: " ") }
}
