/// A two-image poster: a question, hashtags, and the votes each side has received.
public struct Poster: Sendable, Hashable, Identifiable {
    /// Assigned in increasing order and never reused.
    public let id: Int64
    /// The question text, exactly as posted; may be empty.
    public var contents: String
    /// Normalised hashtags in their posted order (see ``Hashtags``).
    public var hashtags: [String]
    /// Votes for the first image.
    public var good1: Int
    /// Votes for the second image.
    public var good2: Int
    /// When the poster was created.
    public var createdAt: Timestamp
    /// The two stored images, first and second.
    public var images: [StoredImage]
    /// What the first and the second image show, in words, for people who cannot see them
    /// (a page's `alt` text); empty when the poster gave none.
    public var alt1: String
    public var alt2: String
    /// Its trending score (``Trending``): 0 without votes, more for more and later votes.
    public var trendingScore: Int64

    /// Creates a poster value.
    public init(
        id: Int64, contents: String, hashtags: [String], good1: Int, good2: Int,
        createdAt: Timestamp, images: [StoredImage], alt1: String = "", alt2: String = "", trendingScore: Int64 = 0
    ) {
        self.trendingScore = trendingScore
        self.id = id
        self.contents = contents
        self.hashtags = hashtags
        self.good1 = good1
        self.good2 = good2
        self.createdAt = createdAt
        self.images = images
        self.alt1 = alt1
        self.alt2 = alt2
    }

    /// All votes cast on this poster.
    public var totalVotes: Int { good1 + good2 }

    /// The share of votes for `side`, from 0 to 1; an even 0.5 when nobody has voted.
    public func share(of side: VoteSide) -> Double {
        guard totalVotes > 0 else { return 0.5 }
        return Double(side == .first ? good1 : good2) / Double(totalVotes)
    }

    /// The side with more votes, or nil on a tie.
    public var majority: VoteSide? {
        good1 == good2 ? nil : (good1 > good2 ? .first : .second)
    }

    /// The votes for `side`.
    public func votes(for side: VoteSide) -> Int {
        side == .first ? good1 : good2
    }
}

/// One of a poster's two sides.
public enum VoteSide: Int, Sendable, CaseIterable {
    case first = 1
    case second = 2

    /// The counter column this side's votes live in.
    var column: String { self == .first ? "good1" : "good2" }
}

/// The order a feed lists posters in.
public enum FeedOrder: String, Sendable, CaseIterable {
    /// Newest first (id descending).
    case new
    /// Most votes first (good1 + good2 descending, then id descending).
    case popular
    /// Most recent votes first: votes decayed by a half-life (``Trending``), then id
    /// descending; posters without votes last, newest first.
    case trending
}
