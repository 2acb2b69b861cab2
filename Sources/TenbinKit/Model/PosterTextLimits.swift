/// The limits on a poster's text: the same for every front end, checked by the core on every
/// path that gives a poster new text (``Board/post(_:)``, ``Board/edit(id:contents:hashtags:)``
/// and every line or folder of an import).
///
/// Hashtags are measured as they are stored, after ``Hashtags/normalize(_:)`` (a dropped `#`,
/// an empty tag or a repeated one does not count). Posters stored over these limits by an
/// older version stay readable, votable and copyable; only new text is checked.
public enum PosterTextLimits {
    /// The most bytes (UTF-8) of a poster's question.
    public static let maximumContentsBytes = 4096
    /// The most hashtags a poster has.
    public static let maximumHashtags = 32
    /// The most bytes (UTF-8) of one hashtag.
    public static let maximumHashtagBytes = 200
    /// The most bytes (UTF-8) of an image's alt text.
    public static let maximumAltBytes = 1000

    /// Checks a new question.
    public static func check(contents: String) throws(PosterTextError) {
        let bytes = contents.utf8.count
        guard bytes <= maximumContentsBytes else { throw .contentsTooLong(bytes: bytes) }
    }

    /// Checks new hashtags, as typed: they are measured as ``Hashtags/normalize(_:)`` will
    /// store them.
    public static func check(hashtags: [String]) throws(PosterTextError) {
        // Normalising only removes tags and characters, so tags within the limits as typed are
        // within them as stored: most never need normalising here.
        guard hashtags.count > maximumHashtags || hashtags.contains(where: { $0.utf8.count > maximumHashtagBytes }) else { return }
        let stored = Hashtags.normalize(hashtags)
        guard stored.count <= maximumHashtags else { throw .tooManyHashtags(count: stored.count) }
        if let long = stored.first(where: { $0.utf8.count > maximumHashtagBytes }) {
            throw .hashtagTooLong(SafeText.excerpt(long, scalars: 20))
        }
    }

    /// Checks a new poster's alt texts (the first image's, then the second's).
    public static func check(alt1: String, alt2: String) throws(PosterTextError) {
        for (side, text) in [(1, alt1), (2, alt2)] where text.utf8.count > maximumAltBytes {
            throw .altTooLong(side: side, bytes: text.utf8.count)
        }
    }

    /// Checks a new poster's question and hashtags.
    public static func check(contents: String, hashtags: [String]) throws(PosterTextError) {
        try check(contents: contents)
        try check(hashtags: hashtags)
    }
}

/// New text over one of ``PosterTextLimits``.
public enum PosterTextError: KindedError, Sendable, Equatable {
    /// The question has this many bytes.
    case contentsTooLong(bytes: Int)
    /// The poster would have this many hashtags.
    case tooManyHashtags(count: Int)
    /// A hashtag is too long: its start (20 scalars and `…`), as ``description`` quotes it.
    case hashtagTooLong(String)
    /// The alt text of image 1 or 2 has this many bytes.
    case altTooLong(side: Int, bytes: Int)

    /// The text is refused as it is: `invalidInput`, as the HTTP API has always answered it (422).
    public var kind: ErrorKind { .invalidInput }

    /// One sentence naming the field and the limit.
    public var description: String {
        switch self {
        case .contentsTooLong:
            "the question is longer than \(CountText.grouped(PosterTextLimits.maximumContentsBytes)) bytes"
        case .tooManyHashtags:
            "a poster has at most \(PosterTextLimits.maximumHashtags) hashtags"
        case .hashtagTooLong(let start):
            "the hashtag \"\(start)\" is longer than \(PosterTextLimits.maximumHashtagBytes) bytes"
        case .altTooLong(let side, _):
            "the alt text of image\(side) is longer than \(CountText.grouped(PosterTextLimits.maximumAltBytes)) bytes"
        }
    }
}
