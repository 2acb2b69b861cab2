/// Popular order as it stood at a walk's start: what keeps a walk through popular order
/// (pages linked by cursors) from skipping or repeating posters while votes move them.
///
/// Every backend logs each vote batch it commits (which posters, how many votes) in the same
/// transaction as the counts, at a position it calls the *mark*. A walk's first page takes the
/// mark of its read, and its cursors carry it; every page of the walk then ranks each poster
/// by its votes as of that mark: the current votes of a poster nothing voted for since, and the
/// current votes less the logged ones since for the few that moved. So every page ranks by the
/// same fixed totals, and a walk from the first page to the last visits each poster that
/// existed when it began (and was not deleted meanwhile) exactly once. Posters show their
/// current counts; only their place is the walk's.
///
/// A page costs what it did plus the log read since the mark (nothing when no vote came
/// since): the posters that moved are skipped in the popular index and merged in at their
/// place as of the mark.
public struct VoteSnapshot: Sendable, Hashable {
    /// The vote-log position the walk ranks as of (the backend's own numbers).
    public var mark: [Int64]
    /// The total votes as of ``mark`` of every poster voted for after it.
    public var moved: [Int64: Int]

    /// A snapshot.
    public init(mark: [Int64], moved: [Int64: Int]) {
        self.mark = mark
        self.moved = moved
    }

    /// Where `poster` stands in the walk's popular order.
    func position(of poster: Poster) -> FeedPosition {
        FeedPosition(id: poster.id, votes: moved[poster.id] ?? poster.totalVotes)
    }

    /// `entry` with its votes as of the mark.
    func ranked(_ entry: SearchEntry) -> SearchEntry {
        var entry = entry
        entry.votes = moved[entry.id] ?? entry.votes
        return entry
    }

    /// True when `position` comes after `after` in popular order (always without `after`).
    static func follows(_ position: FeedPosition, _ after: FeedPosition?) -> Bool {
        guard let after else { return true }
        return (position.votes, position.id) < (after.votes, after.id)
    }

    /// True when `a` comes before `b` in popular order.
    static func precedes(_ a: FeedPosition, _ b: FeedPosition) -> Bool {
        (a.votes, a.id) > (b.votes, b.id)
    }

    /// The posters that moved and come after `after` as of the mark, in the walk's order.
    func movedPositions(after: FeedPosition?) -> [FeedPosition] {
        moved.map { FeedPosition(id: $0.key, votes: $0.value) }.filter { Self.follows($0, after) }.sorted(by: Self.precedes)
    }

    /// A page of popular order as of the mark, after `after`, read through `reading` (the read
    /// this snapshot was taken in).
    ///
    /// Posters that did not move stand in the popular index where they stood at the mark, so
    /// they are read from it after `after`, skipping those that moved; the moved ones that come
    /// after `after` as of the mark are merged in.
    func page(after: FeedPosition?, limit: Int, in reading: any StoreReading) throws -> [Poster] {
        guard !moved.isEmpty else { return try reading.page(order: .popular, after: after, offset: 0, limit: limit) }
        var still: [Poster] = []
        var from = after
        // At most `moved.count` rows of the index are skipped; a bounded batch keeps one read
        // from fetching thousands of posters when many moved.
        let batch = limit + min(moved.count, 4 * limit)
        while still.count < limit {
            let rows = try reading.page(order: .popular, after: from, offset: 0, limit: batch)
            still += rows.filter { moved[$0.id] == nil }
            // The index is walked in its own (current) order, so it continues after the last
            // row read as it stands now, moved or not.
            guard rows.count == batch, let last = rows.last else { break }
            from = FeedPosition(last)
        }
        let movedHere = try reading.posters(ids: movedPositions(after: after).prefix(limit).map(\.id))
        return (still.prefix(limit) + movedHere).sorted { Self.precedes(position(of: $0), position(of: $1)) }
            .prefix(limit).map { $0 }
    }
}

extension Board {
    /// The snapshot of the walk `cursor` belongs to (a new walk's, this read's, without one),
    /// read through `reading`; a mark the backend does not know is a bad cursor.
    static func voteSnapshot(_ cursor: PageCursor?, in reading: any StoreReading) throws -> VoteSnapshot {
        guard let snapshot = try reading.voteSnapshot(mark: cursor?.walkMark) else {
            throw BoardError.invalidCursor(cursor?.encoded ?? "")
        }
        return snapshot
    }
}
