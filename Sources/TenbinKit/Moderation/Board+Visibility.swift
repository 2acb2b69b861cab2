/// What the public sees: every poster but the hidden ones. Feeds, search, live feeds and
/// ``Board/poster(id:)`` read through here; moderators read past it (``Board/moderationItem(id:)``).
///
/// Hidden posters are few, so the store is asked for their ids (one small read) and pages are
/// filtered in the core: a page that lost posters to the filter is topped up from after its
/// last poster, so it still holds `limit` posters when there are that many. A backend that
/// leaves them out in the page's own read (``StoreBackend/visiblePage(order:after:offset:limit:)``,
/// ``StoreBackend/visibleSearchPosters(_:order:after:offset:limit:)``: PostgreSQL, where the
/// small read is a round trip of its own) is asked first.
extension Board {
    /// The ids of the hidden posters now.
    static func hiddenIDs(in store: any StoreBackend) throws -> Set<Int64> {
        Set(try store.readSingle { try $0.hiddenPosters() }.map(\.posterID))
    }

    /// A page of the posters `fetch` reads (a page of all of them in `order`, after a position,
    /// skipping an offset, at most a limit) without the hidden ones: `offset` visible posters
    /// skipped, then at most `limit`. `position` is a poster's place in the page's order (a
    /// walk's own in popular order: ``VoteSnapshot/position(of:)``).
    static func visiblePage(
        order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int, in store: any StoreBackend,
        position place: (Poster) -> FeedPosition = FeedPosition.init,
        fetch: (_ after: FeedPosition?, _ offset: Int, _ limit: Int) throws -> [Poster]
    ) throws -> [Poster] {
        let hidden = try hiddenIDs(in: store)
        guard !hidden.isEmpty else { return try fetch(after, offset, limit) }
        let wanted = offset + limit
        // At most `hidden.count` of a chunk can be left out; a bound keeps a chunk small when
        // many are hidden.
        let chunk = wanted + min(hidden.count, 256)
        var visible: [Poster] = []
        var position = after
        while visible.count < wanted {
            let posters = try fetch(position, 0, chunk)
            visible += posters.filter { !hidden.contains($0.id) }
            guard posters.count == chunk, let last = posters.last else { break }
            position = place(last)
        }
        return Array(visible.dropFirst(offset).prefix(limit))
    }

    /// Whether the poster with this id is hidden from the public.
    public func isHidden(id: Int64) throws -> Bool {
        try Self.hiddenIDs(in: store).contains(id)
    }
}
