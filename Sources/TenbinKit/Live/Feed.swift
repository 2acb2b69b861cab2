/// A feed to observe: an order, how many posters it shows, and optionally a search query.
public struct Feed: Sendable, Hashable {
    /// Newest first or most voted first.
    public var order: FeedOrder
    /// At most this many posters, from the top of the order (at least 1).
    public var limit: Int
    /// Words every poster in the feed must contain; nil (or only white space) for every poster.
    ///
    /// Until tenbin's search lands, a query is matched by a simple placeholder (see
    /// ``PosterStore`` `feedQueryFilter`): each word, with a leading `#`/`＃` removed, must
    /// appear in the contents or a hashtag, ignoring ASCII case only.
    public var query: String?

    /// A feed of the first `limit` posters in `order`, optionally only those matching `query`.
    public init(order: FeedOrder = .new, limit: Int = 20, query: String? = nil) {
        self.order = order
        self.limit = limit
        self.query = query
    }

    /// The query's words: split on any white space (full-width included), a leading `#` or
    /// `＃` dropped, empty words removed. Empty when there is no query.
    var queryWords: [String] {
        guard let query else { return [] }
        return query.split(whereSeparator: \.isWhitespace).map { word in
            word.first == "#" || word.first == "＃" ? String(word.dropFirst()) : String(word)
        }.filter { !$0.isEmpty }
    }
}

/// A feed or an observation that cannot be started.
public enum FeedError: Error, CustomStringConvertible, Sendable, Equatable {
    case invalidLimit(Int)
    case invalidInterval(Duration)

    public var description: String {
        switch self {
        case .invalidLimit(let limit): "cannot observe a feed of \(limit) posters: the limit must be at least 1"
        case .invalidInterval(let interval): "cannot poll for changes every \(interval): the interval must be longer than zero"
        }
    }
}
