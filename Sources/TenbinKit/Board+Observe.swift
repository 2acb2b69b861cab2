extension Board {
    /// Observes a feed: the returned sequence delivers the feed's snapshot first, then the
    /// changes every process commits to it (see ``FeedObservation``).
    ///
    /// The observation reads the store's `tenbin.sqlite` on its own connection, whatever
    /// `PosterStoring` the board was built over. Throws when the feed's limit is below 1 or the polling interval is not positive.
    public func observe(_ feed: Feed, options: FeedObservation.Options = FeedObservation.Options()) throws -> FeedObservation {
        guard feed.limit >= 1 else { throw FeedError.invalidLimit(feed.limit) }
        guard options.interval > .zero else { throw FeedError.invalidInterval(options.interval) }
        return FeedObservation(path: "\(configuration.storePath)/tenbin.sqlite", feed: feed, options: options)
    }
}
