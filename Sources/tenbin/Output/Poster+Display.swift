import TenbinKit

/// A poster's own text as every drawing path shows it: always through ``SafeText``, so what
/// someone posted can never drive the terminal of someone who lists it.
extension Poster {
    /// The question, or `(no question)`; on one line (line breaks as spaces) or in full.
    func displayQuestion(_ lines: SafeText.Lines) -> String {
        contents.isEmpty ? "(no question)" : SafeText.terminal(contents, lines: lines)
    }

    /// Each hashtag with its `#`.
    var displayHashtags: [String] {
        hashtags.map { "#" + SafeText.terminal($0) }
    }
}
