/// One change to an observed feed, with positions in the style of the original app's
/// real-time listeners.
///
/// A change set is applied in array order, one change at a time (see ``FeedDiff/apply(_:to:)``):
/// `oldIndex` is the poster's position in the list just before its change is applied, and
/// `newIndex` its position just after. Applying every change of a set to the previous snapshot
/// gives exactly the new snapshot.
public enum FeedChange: Sendable, Hashable {
    /// A poster entered the feed: insert it at `newIndex`.
    case added(Poster, newIndex: Int)
    /// A poster in the feed changed (its votes, say) or moved: remove it from `oldIndex`, then
    /// insert the new value at `newIndex`.
    case modified(Poster, oldIndex: Int, newIndex: Int)
    /// A poster left the feed (deleted, or pushed out past the limit): remove it from
    /// `oldIndex`. The poster is its last value seen in the feed.
    case removed(Poster, oldIndex: Int)

    /// The poster the change is about (for a removal, its last value seen in the feed).
    public var poster: Poster {
        switch self {
        case .added(let poster, _), .modified(let poster, _, _), .removed(let poster, _): poster
        }
    }

    /// Where the poster was just before this change; nil for an addition.
    public var oldIndex: Int? {
        switch self {
        case .added: nil
        case .modified(_, let oldIndex, _), .removed(_, let oldIndex): oldIndex
        }
    }

    /// Where the poster is just after this change; nil for a removal.
    public var newIndex: Int? {
        switch self {
        case .added(_, let newIndex), .modified(_, _, let newIndex): newIndex
        case .removed: nil
        }
    }
}

/// What an observed feed delivers: the whole feed first, then the changes to it.
public enum FeedUpdate: Sendable, Hashable {
    /// The feed as it is when observation starts.
    case snapshot([Poster])
    /// What changed since the previous update; never empty.
    case changes([FeedChange])
}

/// A change set that does not fit the snapshot it is applied to.
public struct FeedChangeError: KindedError, Sendable, Equatable {
    /// The position of the offending change in its set.
    public let position: Int
    /// The offending change.
    public let change: FeedChange
    /// How many posters the list had when the change was applied.
    public let count: Int

    /// Always `conflict`: the changes do not fit the list they were applied to.
    public var kind: ErrorKind { .conflict }

    public var description: String {
        "cannot apply change \(position + 1) (poster \(change.poster.id), old index \(change.oldIndex.map(String.init) ?? "none"), "
            + "new index \(change.newIndex.map(String.init) ?? "none")) to a list of \(count) posters: it was made for another snapshot"
    }
}
