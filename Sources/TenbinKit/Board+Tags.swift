/// A hashtag's own page: its posters trending first, their votes, and the tag's timeline.
public struct TagSummary: Sendable, Hashable {
    /// The tag as asked for, normalised as a poster's hashtags are (``Hashtags``).
    public var tag: String
    /// A page of the posters with the tag, in trending order.
    public var page: Page
    /// How many posters the public sees with the tag.
    public var posterCount: Int
    /// Their votes for the first and the second image.
    public var good1: Int
    public var good2: Int
    /// The sum of their timelines, a bucket a day, oldest first (``Timeline/view(_:size:)``).
    public var timeline: [TimelineBucket]

    /// All their votes.
    public var totalVotes: Int { good1 + good2 }
}

/// Why a tag cannot be looked up.
public enum TagError: KindedError, Sendable, Equatable {
    /// Nothing left once trimmed and without its `#`.
    case empty
    /// Longer than a hashtag may be.
    case tooLong(String)

    public var kind: ErrorKind { .invalidInput }

    public var description: String {
        switch self {
        case .empty: "a tag needs at least one character besides # and white space"
        case .tooLong(let start):
            "the tag \"\(start)…\" is longer than \(PosterTextLimits.maximumHashtagBytes) bytes, so no poster has it"
        }
    }
}

extension Board {
    /// The tag `text` names: a poster has it when one of its hashtags is the same word once
    /// width, Latin case and kana are folded (`#Cats` and `#cats` are one tag).
    ///
    /// Read from one snapshot: the posters whose search key holds the tag's words, in trending
    /// order, kept when a hashtag equals the tag and the public sees them; a page of `limit`
    /// of them after `cursor` (a trending cursor of the same tag), their count, their votes,
    /// and their timelines summed a day a bucket. It reads every such poster (the totals need
    /// them all), so a tag on a large share of a big board costs a walk of it.
    public func tagSummary(_ text: String, limit: Int = 20, after cursor: PageCursor? = nil) throws -> TagSummary {
        guard let tag = Hashtags.normalize([text]).first else { throw TagError.empty }
        guard tag.utf8.count <= PosterTextLimits.maximumHashtagBytes else { throw TagError.tooLong(String(tag.prefix(24))) }
        let query = SearchQuery(tag)
        let position = try cursor?.position(for: .trending, query: query)
        let key = SearchText.normalize(tag)
        let hidden = try Self.hiddenIDs(in: store)
        let (posters, rows) = try store.read { reading -> ([Poster], [TimelineRow]) in
            let ids = try Self.searchIDs(query, order: .trending, after: nil, offset: 0, limit: Int.max, in: reading)
            let posters = try reading.posters(ids: ids.filter { !hidden.contains($0) }).filter { poster in
                poster.hashtags.contains { SearchText.normalize($0) == key }
            }
            guard let low = posters.map(\.id).min(), let high = posters.map(\.id).max() else { return (posters, []) }
            let wanted = Set(posters.map(\.id))
            return (posters, try reading.timelineRows(posters: low...high).filter { wanted.contains($0.posterID) })
        }
        let following =
            position.map { after in posters.filter { FeedOrder.trending.rank(of: FeedPosition($0)) < FeedOrder.trending.rank(of: after) } }
            ?? posters
        let page = Array(following.prefix(max(0, limit)))
        return TagSummary(
            tag: tag,
            page: Page(
                posters: page,
                next: following.count > page.count
                    ? PageCursor.after(page, order: .trending, limit: limit, query: query, snapshot: nil) : nil),
            posterCount: posters.count, good1: posters.reduce(0) { $0 + $1.good1 }, good2: posters.reduce(0) { $0 + $1.good2 },
            timeline: Timeline.view(rows.map(\.bucket), size: .day))
    }
}
