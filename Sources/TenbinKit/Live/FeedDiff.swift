/// Exact differences between two snapshots of a feed, and applying them.
///
/// Posters are identified by id. ``changes(from:to:)`` emits, in this order:
/// 1. `.removed` for every poster of the old snapshot missing from the new one, by descending
///    old index (so each index is still its position in the old snapshot);
/// 2. `.added` and `.modified` for every poster of the new snapshot that is new, changed, or
///    must move, by ascending position in the new snapshot. Each is placed right after the
///    poster that precedes it in the new snapshot (at 0 when it is first).
///
/// Posters that are unchanged and already in their new relative order (the longest such run)
/// are not mentioned: they end up in place once the others are. Each change's indices are
/// computed by replaying the changes before it, so ``apply(_:to:)`` — which replays the same
/// steps — rebuilds the new snapshot exactly.
public enum FeedDiff {
    /// The change set that turns `old` into `new`. Each snapshot lists a poster at most once.
    public static func changes(from old: [Poster], to new: [Poster]) -> [FeedChange] {
        let oldIndex = positions(old)
        let newIndex = positions(new)
        var changes: [FeedChange] = []
        for (index, poster) in old.enumerated().reversed() where newIndex[poster.id] == nil {
            changes.append(.removed(poster, oldIndex: index))
        }
        let kept = unchangedInOrder(old: old, new: new, newIndex: newIndex)
        // The list as the changes so far leave it, as ids (removals already applied).
        var list = old.map(\.id).filter { newIndex[$0] != nil }
        for (position, poster) in new.enumerated() where !kept.contains(poster.id) {
            var from: Int?
            if oldIndex[poster.id] != nil {
                // Invariant: a poster of both snapshots that is not kept is still in the list.
                guard let current = list.firstIndex(of: poster.id) else { preconditionFailure("a moved poster left the list") }
                list.remove(at: current)
                from = current
            }
            var to = 0
            if position > 0 {
                // Invariant: every poster before `position` in `new` is kept or already placed.
                guard let previous = list.firstIndex(of: new[position - 1].id) else { preconditionFailure("a placed poster left the list") }
                to = previous + 1
            }
            list.insert(poster.id, at: to)
            changes.append(from.map { .modified(poster, oldIndex: $0, newIndex: to) } ?? .added(poster, newIndex: to))
        }
        return changes
    }

    /// Applies `changes` to `snapshot` in order, each at the indices it names.
    ///
    /// Throws when a change does not fit (an index out of range, or a removal naming another
    /// poster than the one at its index): the set was made for another snapshot.
    public static func apply(_ changes: [FeedChange], to snapshot: [Poster]) throws(FeedChangeError) -> [Poster] {
        var list = snapshot
        for (position, change) in changes.enumerated() {
            let misfit = FeedChangeError(position: position, change: change, count: list.count)
            if let from = change.oldIndex {
                guard list.indices.contains(from), list[from].id == change.poster.id else { throw misfit }
                list.remove(at: from)
            }
            if let to = change.newIndex {
                guard (0...list.count).contains(to) else { throw misfit }
                list.insert(change.poster, at: to)
            }
        }
        return list
    }

    private static func positions(_ posters: [Poster]) -> [Int64: Int] {
        var positions: [Int64: Int] = [:]
        for (index, poster) in posters.enumerated() {
            // Invariant of a feed: SQL returns each poster once.
            precondition(positions.updateValue(index, forKey: poster.id) == nil, "poster \(poster.id) is listed twice in a feed snapshot")
        }
        return positions
    }

    /// The ids of the longest run of posters that are equal in both snapshots and in the same
    /// relative order (a longest increasing subsequence of their new positions, in old order).
    private static func unchangedInOrder(old: [Poster], new: [Poster], newIndex: [Int64: Int]) -> Set<Int64> {
        let candidates = old.compactMap { poster -> (id: Int64, position: Int)? in
            guard let position = newIndex[poster.id], new[position] == poster else { return nil }
            return (poster.id, position)
        }
        // Patience sorting: `tails[k]` is the candidate ending the best run of length k + 1.
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: candidates.count)
        for (index, candidate) in candidates.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if candidates[tails[middle]].position < candidate.position { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var kept = Set<Int64>()
        var cursor = tails.last ?? -1
        while cursor >= 0 {
            kept.insert(candidates[cursor].id)
            cursor = previous[cursor]
        }
        return kept
    }
}
