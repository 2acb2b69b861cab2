/// A page of posters and where the next one starts.
public struct Page: Sendable, Hashable {
    /// The posters, in the page's order.
    public var posters: [Poster]
    /// Where the next page starts; nil when this page is the last.
    public var next: PageCursor?

    /// A page.
    public init(posters: [Poster], next: PageCursor?) {
        self.posters = posters
        self.next = next
    }
}

/// Where the next page of a list starts, as an opaque string a client hands back.
///
/// It records the last poster's position (its id, in popular order its votes and in trending
/// order its score as of the walk's start), the order it was made for, in those two orders the
/// walk's mark (the number of the last vote batch its first page saw: ``VoteSnapshot``; every page of a walk ranks by the
/// votes as of its first page, so votes cast meanwhile neither skip nor repeat a poster), and
/// for a search a short fingerprint of the query, so a cursor handed to another list is
/// refused instead of silently skipping posters. Its text is ASCII letters, digits, `.` and
/// `-`, safe in a URL as it is. A cursor of an older tenbin (popular without a mark) is refused
/// like any other bad one.
public struct PageCursor: Sendable, Hashable, CustomStringConvertible {
    /// The order the cursor was made for.
    public let order: FeedOrder
    /// The last poster of the page it follows.
    public let position: FeedPosition
    /// The fingerprint of the search it belongs to; 0 for a plain list.
    let query: UInt32
    /// The walk's mark (popular and trending order; 0 in newest-first order, where nothing moves).
    let mark: Int64

    /// The cursor as text.
    public var encoded: String {
        switch order {
        case .new: "n\(position.id)" + (query == 0 ? "" : ".\(String(query, radix: 36))")
        case .popular:
            "p\(position.votes)-\(position.id)-\(mark)"
                + (query == 0 ? "" : ".\(String(query, radix: 36))")
        case .trending:
            "t\(position.score)-\(position.id)-\(mark)"
                + (query == 0 ? "" : ".\(String(query, radix: 36))")
        }
    }

    /// The cursor as text.
    public var description: String { encoded }

    /// Reads a cursor's text; nil unless it is exactly what ``encoded`` makes.
    public init?(encoded text: String) {
        guard text.utf8.count <= 80, let first = text.first else { return nil }
        let parts = text.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return nil }
        var fingerprint: UInt32 = 0
        if parts.count == 2 {
            guard let value = UInt32(parts[1], radix: 36), value != 0, String(value, radix: 36) == parts[1] else { return nil }
            fingerprint = value
        }
        switch first {
        case "n":
            guard let id = Self.number(parts[0]) else { return nil }
            self.init(order: .new, position: FeedPosition(id: id), query: fingerprint, mark: 0)
        case "p":
            let numbers = parts[0].split(separator: "-", omittingEmptySubsequences: false)
            let values = numbers.compactMap(Self.number)
            guard numbers.count == 3, values.count == 3, let votes = Int(exactly: values[0]) else { return nil }
            self.init(order: .popular, position: FeedPosition(id: values[1], votes: votes), query: fingerprint, mark: values[2])
        case "t":
            let numbers = parts[0].split(separator: "-", omittingEmptySubsequences: false)
            let values = numbers.compactMap(Self.number)
            guard numbers.count == 3, values.count == 3 else { return nil }
            self.init(order: .trending, position: FeedPosition(id: values[1], score: values[0]), query: fingerprint, mark: values[2])
        default:
            return nil
        }
    }

    init(order: FeedOrder, position: FeedPosition, query: UInt32, mark: Int64) {
        self.order = order
        self.position = position
        self.query = query
        self.mark = mark
    }

    /// The mark of the walk the cursor belongs to (popular and trending order).
    var walkMark: Int64? { order.movesWithVotes ? mark : nil }

    /// A non-negative decimal without sign or leading zeros.
    private static func number(_ text: Substring) -> Int64? {
        guard let value = Int64(text), value >= 0, String(value) == text else { return nil }
        return value
    }

    /// The cursor after a page, or nil when the page was not full (it was the last). In
    /// popular order `snapshot` is the walk's: the cursor carries its mark and the last
    /// poster's place as of it.
    static func after(_ posters: [Poster], order: FeedOrder, limit: Int, query: SearchQuery?, snapshot: VoteSnapshot?) -> PageCursor? {
        guard posters.count == limit, let last = posters.last else { return nil }
        let fingerprint = query.map(fingerprint) ?? 0
        guard order.movesWithVotes, let snapshot else {
            return PageCursor(order: order, position: FeedPosition(last), query: fingerprint, mark: 0)
        }
        return PageCursor(order: order, position: snapshot.position(of: last), query: fingerprint, mark: snapshot.mark)
    }

    /// The position to continue from, when the cursor was made for this order and query.
    func position(for order: FeedOrder, query: SearchQuery?) throws(BoardError) -> FeedPosition {
        guard order == self.order, self.query == (query.map(Self.fingerprint) ?? 0) else { throw .invalidCursor(encoded) }
        return position
    }

    /// A non-zero 32-bit FNV-1a hash of the query's normalised words.
    static func fingerprint(_ query: SearchQuery) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in query.words.joined(separator: "\u{1F}").utf8 {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        return hash == 0 ? 1 : hash
    }
}
