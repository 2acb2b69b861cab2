/// Where live feeds learn that the store changed. One per store per process: however many
/// feeds are open, they share it (see ``LiveFeeds``).
///
/// A polling backend (SQLite) answers by looking at a cheap commit counter every `interval`;
/// a pushing backend (PostgreSQL's LISTEN/NOTIFY) answers when told. Either way a change may
/// be reported that left a feed as it was (the feed is then re-read and nothing delivered),
/// but a commit is never missed.
public protocol ChangeSource: Sendable {
    /// The store's current change version, read before the snapshot it stands for: a commit
    /// after this call yields a different version from the next one.
    func currentVersion() throws -> StoreVersion
    /// Returns once the store may have changed since `version`, with the new version.
    /// Cancelling the calling task ends the wait with `CancellationError`.
    func nextChange(after version: StoreVersion, interval: Duration, clock: any Clock<Duration>) async throws -> StoreVersion
}

/// An opaque count of a store's commits, as one change source sees it.
public struct StoreVersion: Sendable, Hashable {
    /// The backend's own number.
    public var value: Int64

    /// A version.
    public init(_ value: Int64) {
        self.value = value
    }
}
