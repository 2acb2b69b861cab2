/// Popular or trending order as it stood at a walk's start: what keeps a walk through either
/// (pages linked by cursors) from skipping or repeating posters while votes move them.
///
/// Every backend logs each vote batch it commits in the same transaction as the counts: the batch
/// gets the next number of one counter (so batches are numbered in commit order), and each poster
/// it votes for gets a log row with that number and its total votes before the batch (PostgreSQL
/// also sets its "last moved" row to that number). A read's *mark* is the number of the last batch
/// it sees. A walk's first page takes its read's mark and its cursors carry it; every page of the
/// walk ranks each poster by its votes as of that mark: its current votes when no batch after the
/// mark voted for it, else its total before the first such batch (PostgreSQL probes a log indexed
/// by poster; SQLite reads the batches after the mark in order, remembering what it read for the
/// walk's next page). So every page ranks by the same fixed totals, and a walk visits each poster
/// that existed when it began (and was not deleted or hidden meanwhile) exactly once. Posters show
/// their current counts; only their place is the walk's.
///
/// A page costs what it did plus the posters voted for since the mark: they are skipped in the
/// popular index and merged in at their place as of the mark. The log keeps ``retention`` of
/// batches: every ``pruneEvery``th batch's transaction also drops older ones
/// (``StoreWriting/pruneVoteLog(now:keeping:)``), and a cursor whose mark is older than what is
/// kept is refused as expired (``BoardError/cursorExpired``; the server answers 410
/// `cursor_expired`).
///
/// An order key that votes move is all this needs (``StoreReading/keysAsOf(mark:order:)``):
/// popular's total, and trending's score (``Trending``: only votes move it), which the log keeps
/// beside the total as it was before each batch.
public struct VoteSnapshot: Sendable, Hashable {
    /// The order walked (one whose key votes move: ``FeedOrder/movesWithVotes``).
    public var order: FeedOrder = .popular
    /// The number of the last vote batch the walk ranks as of.
    public var mark: Int64
    /// The order's key as of ``mark`` (popular: the total votes; trending: the score) of
    /// every poster voted for after it.
    public var moved: [Int64: Int]

    /// How long the vote log keeps batches, so how long a walk may last (an hour), in seconds:
    /// far less than timelines keep minute buckets, and long enough to read thousands of pages.
    public static let retention: Int64 = 3600

    /// How many vote batches go between two prunings of the vote log: each prunes what aged
    /// since the one before, so the log holds at most ``retention`` and this many batches.
    public static let pruneEvery: Int64 = 64

    /// A snapshot.
    public init(order: FeedOrder = .popular, mark: Int64, moved: [Int64: Int]) {
        self.order = order
        self.mark = mark
        self.moved = moved
    }

    /// Where `poster` stands in the walk's order as of the mark.
    func position(of poster: Poster) -> FeedPosition {
        var position = FeedPosition(poster)
        if let key = moved[poster.id] { set(key, of: &position.votes, &position.score) }
        return position
    }

    /// `entry` with its key as of the mark.
    func ranked(_ entry: SearchEntry) -> SearchEntry {
        var entry = entry
        if let key = moved[entry.id] { set(key, of: &entry.votes, &entry.score) }
        return entry
    }

    /// Puts `key` where the walk's order keeps it: the votes (popular) or the score (trending).
    private func set(_ key: Int, of votes: inout Int, _ score: inout Int64) {
        if order == .trending { score = Int64(key) } else { votes = key }
    }

    /// True when `position` comes after `after` in the walk's order (always without `after`).
    func follows(_ position: FeedPosition, _ after: FeedPosition?) -> Bool {
        guard let after else { return true }
        return order.rank(of: position) < order.rank(of: after)
    }

    /// True when `a` comes before `b` in the walk's order.
    func precedes(_ a: FeedPosition, _ b: FeedPosition) -> Bool {
        order.rank(of: a) > order.rank(of: b)
    }

    /// The posters that moved and come after `after` as of the mark, in the walk's order.
    func movedPositions(after: FeedPosition?) -> [FeedPosition] {
        moved.map { id, key in
            order == .trending ? FeedPosition(id: id, score: Int64(key)) : FeedPosition(id: id, votes: key)
        }.filter { follows($0, after) }.sorted(by: precedes)
    }

    /// A page of popular order as of the mark, after `after`, read through `reading` (the read
    /// this snapshot was taken in).
    ///
    /// Posters that did not move stand in the popular index where they stood at the mark, so
    /// they are read from it after `after`, skipping those that moved; the moved ones that come
    /// after `after` as of the mark are merged in.
    func page(after: FeedPosition?, limit: Int, in reading: any StoreReading) throws -> [Poster] {
        guard !moved.isEmpty else { return try reading.page(order: order, after: after, offset: 0, limit: limit) }
        var still: [Poster] = []
        var from = after
        // At most `moved.count` rows of the index are skipped; a bounded batch keeps one read
        // from fetching thousands of posters when many moved.
        let batch = limit + min(moved.count, 4 * limit)
        while still.count < limit {
            let rows = try reading.page(order: order, after: from, offset: 0, limit: batch)
            still += rows.filter { moved[$0.id] == nil }
            // The index is walked in its own (current) order, so it continues after the last
            // row read as it stands now, moved or not.
            guard rows.count == batch, let last = rows.last else { break }
            from = FeedPosition(last)
        }
        // A backend's log may name posters deleted since (SQLite's keeps no index by poster
        // to join them away with): read on past them, so a deleted one never takes the place
        // of a moved one that comes next.
        var movedHere: [Poster] = []
        var pending = movedPositions(after: after)[...]
        while movedHere.count < limit, !pending.isEmpty {
            let ids = pending.prefix(limit - movedHere.count).map(\.id)
            pending = pending.dropFirst(ids.count)
            movedHere += try reading.posters(ids: ids)
        }
        return (still.prefix(limit) + movedHere).sorted { precedes(position(of: $0), position(of: $1)) }
            .prefix(limit).map { $0 }
    }
}

extension FeedOrder {
    /// The vote log's column holding this order's key before each batch (`votes_before`,
    /// `trend_before`), the same on every backend that logs in SQL; nil for an order votes do
    /// not move.
    package var voteLogColumn: String? {
        switch self {
        case .new: nil
        case .popular: "votes_before"
        case .trending: "trend_before"
        }
    }

    /// Whether votes move a poster in this order, so a walk through it ranks as of its first
    /// page (``VoteSnapshot``): popular's key is the total votes, trending's the score; the
    /// vote log keeps both as they were before each batch (``StoreReading/keysAsOf(mark:order:)``).
    public var movesWithVotes: Bool { voteLogColumn != nil }
}

/// Where a read stands in the vote log.
public struct VoteLogMarks: Sendable, Hashable {
    /// The number of the last vote batch the read sees (0 before the first): a new walk's mark.
    public var last: Int64
    /// The oldest mark the log still answers for: batches numbered up to it were pruned.
    public var oldest: Int64

    /// Marks.
    public init(last: Int64, oldest: Int64) {
        self.last = last
        self.oldest = oldest
    }
}

extension Board {
    /// The snapshot of a walk with `mark` (a new walk's, this read's own, when nil), read
    /// through `reading`: a mark the backend never handed out is a bad cursor, one older than
    /// the log keeps an expired one.
    static func voteSnapshot(
        order: FeedOrder = .popular, mark: Int64?, cursor: PageCursor?, in reading: any StoreReading
    ) throws -> VoteSnapshot {
        let marks = try reading.voteLogMarks()
        guard let mark else { return VoteSnapshot(order: order, mark: marks.last, moved: [:]) }
        guard mark <= marks.last else { throw BoardError.invalidCursor(cursor?.encoded ?? "") }
        guard mark >= marks.oldest else { throw BoardError.cursorExpired(cursor?.encoded ?? "") }
        return VoteSnapshot(order: order, mark: mark, moved: try reading.keysAsOf(mark: mark, order: order))
    }

    /// A page of a walk in `order` (one votes move) after `after`, hidden posters left out,
    /// ranked as of `cursor`'s mark (a new walk's without one), and the walk's snapshot. `fetch` reads a part
    /// of the walk (at most a limit after a position) as of a mark (nil: its read's own) and the
    /// snapshot it ranked by; a page that lost posters to hiding reads on from its last poster's
    /// place in the walk, as of the same mark.
    func walk(
        _ order: FeedOrder, cursor: PageCursor?, after: FeedPosition?, limit: Int,
        fetch: (_ mark: Int64?, _ after: FeedPosition?, _ limit: Int) throws -> ([Poster], VoteSnapshot)
    ) throws -> ([Poster], VoteSnapshot?) {
        var mark = cursor?.walkMark
        var snapshot: VoteSnapshot?
        let posters = try Self.visiblePage(
            order: order, after: after, offset: 0, limit: limit, in: store,
            position: { snapshot?.position(of: $0) ?? FeedPosition($0) }
        ) { after, _, limit in
            let (posters, taken) = try fetch(mark, after, limit)
            // Later parts rank as of the first part's mark; a poster that moved between parts
            // has the same place in each (its votes then, or its votes as of the mark).
            mark = taken.mark
            snapshot = taken
            return posters
        }
        return (posters, snapshot)
    }
}
