extension Board {
    /// A poster's votes over time, in buckets of `size`, oldest first, empty buckets left out.
    /// The buckets add up to the poster's counts. Votes older than 48 hours are kept per hour
    /// and those older than 90 days per day (``Timeline``), so a minute view shows them in the
    /// coarser buckets they were folded into; a day view sums everything.
    public func timeline(poster id: Int64, bucket size: TimelineBucketSize) throws -> [TimelineBucket] {
        let rows = try store.read { reading -> [TimelineRow]? in
            guard try !reading.posters(ids: [id]).isEmpty else { return nil }
            return try reading.timelineRows(posters: id...id)
        }
        guard let rows else { throw BoardError.noSuchPoster(id) }
        return Timeline.view(rows.map(\.bucket), size: size)
    }

    /// Folds the timeline buckets that have aged (minutes past 48 hours into hours, hours past
    /// 90 days into days) in one transaction; totals never change. `serve`'s vote batcher does
    /// this at most once a minute, and `gc` does it too.
    public func compactTimelines() throws {
        let now = configuration.now()
        try store.write { try $0.compactTimelines(now: now) }
    }
}
