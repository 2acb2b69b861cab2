extension Board {
    /// Observes a feed: the returned sequence delivers the feed's snapshot first, then the
    /// changes every process commits to it (see ``FeedObservation``). All observations of a
    /// board share one change source (``LiveFeeds``). Throws when the feed's limit is below 1
    /// or the board's polling interval is not positive.
    public func observe(_ feed: Feed) throws -> FeedObservation {
        guard feed.limit >= 1 else { throw FeedError.invalidLimit(feed.limit) }
        guard configuration.live.interval > .zero else { throw FeedError.invalidInterval(configuration.live.interval) }
        return FeedObservation(live: live, feed: feed)
    }
}

extension Board {
    /// The store's change version now (see ``ChangeSource/currentVersion()``): a read made
    /// after this call and a later call that answers the same version saw the same data, since
    /// any commit in between — by this process or another — moves it. A server keys what it
    /// caches on it.
    package func changeVersion() throws -> StoreVersion {
        try store.changes.currentVersion()
    }

    /// Returns once the store may have changed since `version` (a commit by any process),
    /// with the new version; waits as live feeds do (``LiveFeeds/Options``). Cancelling the
    /// calling task ends the wait with `CancellationError`. A server pushes these into what it
    /// caches instead of asking for the version on every request.
    package func nextChange(after version: StoreVersion) async throws -> StoreVersion {
        try await store.changes.nextChange(after: version, interval: configuration.live.interval, clock: configuration.live.clock)
    }
}

extension Board {
    /// Closes the board: every live feed's observation ends (its next update is nil), the task
    /// that waits for changes stops, and then the store closes its connections (see
    /// ``StoreBackend/close()``; SQLite moves its write-ahead log into the database and removes
    /// it). Its owner calls it when done, from a task (a caller outside any task uses the
    /// blocking ``close()``). Afterwards reads and writes throw ``StoreError`` (`closed`) and
    /// observing throws ``FeedError/closed``. Closing again does nothing more.
    public func close() async {
        await live.close()
        store.close()
    }

    /// ``close()`` for a caller outside any task (a command, on its main thread): blocks the
    /// thread until the live feeds' task has ended, then closes the store. Never call it from
    /// a task: it would hold a thread of the pool that task may need to end.
    public func close() {
        live.closeBlocking()
        store.close()
    }
}

extension Board {
    /// Throws unless the board can take a write now: the store answers and the blob folder
    /// exists and takes a probe write (see ``BlobStoring/checkWritable(creating:)``). With
    /// `creating`, a store's blob folder that does not exist yet is made.
    public func checkReady(creating: Bool = false) throws {
        _ = try count()
        try checkBlobFolder(creating: creating)
    }

    /// Throws unless the blob folder exists (made first with `creating`, when its parent
    /// does) and takes a probe write.
    package func checkBlobFolder(creating: Bool) throws {
        try blobs.checkWritable(creating: creating)
    }
}
