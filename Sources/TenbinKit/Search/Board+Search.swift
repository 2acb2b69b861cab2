/// Search planning and the recheck: the core's half of search. A backend only narrows
/// candidates with its index of the key's pieces (``SearchGrams``); every candidate is
/// rechecked here against its stored key, so results are exactly those of a scan whatever the
/// index returns, and every backend answers the same. A backend may answer a page newest first
/// whole, hidden posters left out, rechecking with the core's own test
/// (``StoreBackend/visibleSearchPosters(_:order:after:offset:limit:)``: PostgreSQL).
extension Board {
    /// More index hits than this and popular (trending) order walks the posters by votes
    /// (scores) instead.
    static let popularCandidateLimit = 2_000

    /// The ids of a page of posters matching `query`, in `order`, after `after`, skipping
    /// `offset` matches, read through `reading` (one snapshot).
    ///
    /// Newest first reads the index's hits from the highest id down and stops once the page
    /// is full, so it costs about as much as the page, however many posters match. Popular
    /// order ranks every hit when there are few; with many, matches are common, so walking
    /// all posters from the most voted down finds a page after a few thousand rows. Inside a
    /// task, the scan stops with `CancellationError` once the task is cancelled.
    ///
    /// With `snapshot` (a walk's, taken in `reading`; `offset` 0), popular order ranks by the
    /// votes as of its mark: the posters that moved since are skipped in the walk by votes and
    /// merged in at their place as of the mark (``VoteSnapshot``).
    static func searchIDs(
        _ query: SearchQuery, order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int, in reading: any StoreReading,
        snapshot: VoteSnapshot? = nil
    ) throws -> [Int64] {
        let terms = SearchGrams.terms(for: query)
        guard !terms.isEmpty, limit > 0 else { return [] }
        var page = SearchPageCollector(query: query, offset: offset, limit: limit)
        switch order {
        case .new:
            try reading.searchCandidates(terms, below: after?.id) { try page.take($0) }
        case .popular, .trending:
            let hits = try reading.searchCandidateIDs(terms, limit: popularCandidateLimit + 1)
            guard hits.count > popularCandidateLimit else {
                if Task.isCancelled { throw CancellationError() }
                var ranked = try reading.searchEntries(ids: hits).filter { query.matches(key: $0.key) }
                if let snapshot { ranked = ranked.map(snapshot.ranked) }
                ranked.sort { order.rank(of: $0) > order.rank(of: $1) }
                if let after { ranked.removeAll { order.rank(of: $0) >= order.rank(of: after) } }
                return ranked.dropFirst(offset).prefix(limit).map(\.id)
            }
            // Every poster by the order's key, from the index of votes or of scores.
            let walkByKey = { (visit: (SearchEntry) throws -> Bool) in
                order == .popular
                    ? try reading.searchEntriesByVotes(after: after, visit: visit)
                    : try reading.searchEntriesByScore(after: after, visit: visit)
            }
            guard let snapshot, !snapshot.moved.isEmpty else {
                try walkByKey { try page.take($0) }
                return page.ids
            }
            try walkByKey { snapshot.moved[$0.id] != nil ? true : try page.take($0) }
            let moved = try reading.searchEntries(ids: snapshot.movedPositions(after: after).map(\.id))
                .filter { query.matches(key: $0.key) }.map(snapshot.ranked)
            return (page.entries + moved).sorted { order.rank(of: $0) > order.rank(of: $1) }.prefix(limit).map(\.id)
        }
        return page.ids
    }

    /// A page of a walk through the matches of `query` in `order` (popular or trending), after `after`, ranked
    /// as of `mark` (this read's own when nil; `cursor` is named by a refusal), and the walk's
    /// snapshot.
    func searchWalk(
        _ query: SearchQuery, order: FeedOrder, after: FeedPosition?, mark: Int64?, cursor: PageCursor?, limit: Int
    ) throws -> ([Poster], VoteSnapshot) {
        try store.read { reading in
            let snapshot = try Self.voteSnapshot(order: order, mark: mark, cursor: cursor, in: reading)
            let ids = try Self.searchIDs(query, order: order, after: after, offset: 0, limit: limit, in: reading, snapshot: snapshot)
            return (try reading.posters(ids: ids), snapshot)
        }
    }

    /// The posters of a page of matches of `query` (as ``searchIDs(_:order:after:offset:limit:in:)``
    /// finds them) that the public may see, from one snapshot; asked of the backend whole where
    /// it can (``StoreBackend/visibleSearchPosters(_:order:after:offset:limit:)``).
    func searchPosters(_ query: SearchQuery, order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int) throws -> [Poster] {
        try Self.searchPosters(query, order: order, after: after, offset: offset, limit: limit, in: store)
    }

    /// ``searchPosters(_:order:after:offset:limit:)`` on `store`: also how a live feed of a
    /// search is read (``LiveFeeds``).
    static func searchPosters(
        _ query: SearchQuery, order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int, in store: any StoreBackend
    ) throws -> [Poster] {
        if limit > 0, let posters = try store.visibleSearchPosters(query, order: order, after: after, offset: offset, limit: limit) {
            return posters
        }
        return try visiblePage(order: order, after: after, offset: offset, limit: limit, in: store) { after, offset, limit in
            try store.read { reading in
                try reading.posters(ids: searchIDs(query, order: order, after: after, offset: offset, limit: limit, in: reading))
            }
        }
    }

    /// The reference search is measured and tested against: every stored key read and tested
    /// with a plain byte-substring check, no index. Slow on a large store; without a limit it
    /// returns every match.
    package func scanSearchIDs(query text: String, order: FeedOrder = .new, limit: Int? = nil, offset: Int = 0) throws -> [Int64] {
        let query = SearchQuery(text)
        guard !query.isEmpty else { return [] }
        let words = query.words.map { Array($0.utf8) }
        var entries: [SearchEntry] = []
        try store.read { reading in
            try reading.searchCandidates([], below: nil) { entry in
                let key = Array(entry.key.utf8)
                if words.allSatisfy({ SearchGrams.contains(key, $0) }) { entries.append(entry) }
                return true
            }
        }
        if order != .new { entries.sort { order.rank(of: $0) > order.rank(of: $1) } }
        let page = entries.dropFirst(max(0, offset))
        return (limit.map { Array(page.prefix($0)) } ?? Array(page)).map(\.id)
    }
}

/// Collects a page from candidates in order: rechecks each, skips `offset` matches, stops when
/// the page is full, and notices cancellation every 256 candidates.
struct SearchPageCollector {
    let query: SearchQuery
    let offset: Int
    let limit: Int
    /// The matches taken, in the order they came.
    private(set) var entries: [SearchEntry] = []
    /// Their ids.
    var ids: [Int64] { entries.map(\.id) }
    private var matched = 0
    private var seen = 0

    init(query: SearchQuery, offset: Int, limit: Int) {
        self.query = query
        self.offset = offset
        self.limit = limit
    }

    /// Takes one candidate; false once the page is full.
    mutating func take(_ entry: SearchEntry) throws -> Bool {
        seen += 1
        if seen & 0xFF == 0 && Task.isCancelled { throw CancellationError() }
        guard query.matches(key: entry.key) else { return true }
        matched += 1
        if matched > offset { entries.append(entry) }
        return entries.count < limit
    }
}
