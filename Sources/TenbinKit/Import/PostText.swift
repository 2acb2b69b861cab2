/// The text of a poster folder's `post.txt`: its question and its hashtags.
///
/// The file is UTF-8, with or without a byte-order mark, with LF, CRLF or CR line ends.
/// A line whose every word starts with `#` or `＃` gives hashtags (one per word); every
/// other line that is not blank is part of the contents, trimmed. Content lines are joined
/// with a line feed, keeping the author's line breaks; blank lines are dropped.
struct PostText: Sendable, Equatable {
    var contents: String
    /// The hashtag words as written (`#猫`); they are normalised when the poster is stored.
    var hashtags: [String]

    /// Why a `post.txt` cannot be used.
    struct Problem: KindedError, Equatable {
        let reason: String

        var kind: ErrorKind { .invalidInput }
        var description: String { reason }
    }

    /// Parses the bytes of a `post.txt`.
    static func parse(_ bytes: [UInt8]) throws(Problem) -> PostText {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        guard let text = String(validating: body, as: UTF8.self) else {
            throw Problem(reason: "is not UTF-8 text; save it as UTF-8")
        }
        var lines: [Substring] = []
        var tags: [Substring] = []
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            let words = line.split(whereSeparator: \.isWhitespace)
            if words.isEmpty { continue }
            if words.allSatisfy({ $0.first == "#" || $0.first == "＃" }) {
                tags += words
            } else {
                lines.append(line.trimmingWhitespace())
            }
        }
        return PostText(contents: lines.joined(separator: "\n"), hashtags: tags.map(String.init))
    }
}
