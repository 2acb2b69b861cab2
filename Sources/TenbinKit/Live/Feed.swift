/// A feed to observe: an order, how many posters it shows, and optionally a search query.
public struct Feed: Sendable, Hashable {
    /// Newest first or most voted first.
    public var order: FeedOrder
    /// At most this many posters, from the top of the order (at least 1).
    public var limit: Int
    /// Words every poster in the feed must contain, matched as `tenbin search` matches them
    /// (width, case and kana ignored); nil (or only white space) for every poster.
    public var query: String?
    /// One poster only (its page's live counts): the feed holds it while it exists, whatever
    /// the order, limit and query say; nil for a feed of the board.
    public var poster: Int64?

    /// A feed of the first `limit` posters in `order`, optionally only those matching `query`.
    public init(order: FeedOrder = .new, limit: Int = 20, query: String? = nil) {
        self.order = order
        self.limit = limit
        self.query = query
    }

    /// A feed of poster `id` alone.
    public init(poster id: Int64) {
        self.init(limit: 1)
        poster = id
    }

    /// The parsed query, or nil when there is none (or it has no words).
    var searchQuery: SearchQuery? {
        guard let query else { return nil }
        let parsed = SearchQuery(query)
        return parsed.isEmpty ? nil : parsed
    }
}

/// A feed or an observation that cannot be started.
public enum FeedError: KindedError, Sendable, Equatable {
    case invalidLimit(Int)
    case invalidInterval(Duration)
    /// The board's live feeds were closed (``Board/close()``): it observes nothing more.
    case closed

    /// `invalidInput` when the feed was asked for with a bad value; `unavailable` once closed.
    public var kind: ErrorKind {
        switch self {
        case .invalidLimit, .invalidInterval: .invalidInput
        case .closed: .unavailable
        }
    }

    public var description: String {
        switch self {
        case .invalidLimit(let limit): "cannot observe a feed of \(limit) posters: the limit must be at least 1"
        case .invalidInterval(let interval): "cannot poll for changes every \(interval): the interval must be longer than zero"
        case .closed: "cannot observe a feed: the board's live feeds are closed"
        }
    }
}
