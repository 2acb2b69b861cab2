/// A memory cache that keeps the most recently used entries, bounded by their total cost and
/// by their count. Reading, writing and evicting are O(1): a dictionary finds an entry's slot
/// in an array, and the slots are chained newest to oldest by index.
///
/// Safe to use from any number of tasks at once: all state sits behind one `Mutex`.
package final class LRUCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The most total cost the cache holds; an entry costing more than a tenth of it is not
    /// cached at all, so one entry cannot flush the rest.
    package let costLimit: Int
    /// The most entries the cache holds.
    package let countLimit: Int
    private let storage: Locked<Storage>

    /// An empty cache with the given limits (negative limits count as zero).
    package init(costLimit: Int, countLimit: Int) {
        self.costLimit = max(0, costLimit)
        self.countLimit = max(0, countLimit)
        storage = Locked(Storage())
    }

    /// The value for `key`, which becomes the most recently used; nil when it is not cached.
    /// Counts a hit or a miss.
    package func value(forKey key: Key) -> Value? {
        storage.withLock { storage in
            guard let slot = storage.slots[key] else {
                storage.misses += 1
                return nil
            }
            storage.hits += 1
            storage.moveToNewest(slot)
            return storage.entries[slot].value
        }
    }

    /// Caches `value` under `key` as the most recently used, replacing (and re-costing) an
    /// entry already there, then evicts the least recently used entries until both limits
    /// hold. A value costing more than a tenth of the cost limit is not cached, and an older
    /// value under the same key is dropped, since it is stale.
    package func setValue(_ value: Value, forKey key: Key, cost: Int) {
        let cost = max(0, cost)
        storage.withLock { storage in
            guard cost <= costLimit / 10, countLimit > 0 else {
                if let slot = storage.slots[key] { storage.remove(slot) }
                return
            }
            if let slot = storage.slots[key] {
                storage.totalCost += cost - storage.entries[slot].cost
                storage.entries[slot].value = value
                storage.entries[slot].cost = cost
                storage.moveToNewest(slot)
            } else {
                storage.insertNewest(Entry(key: key, value: value, cost: cost))
            }
            while storage.totalCost > costLimit || storage.entries.count > countLimit {
                storage.remove(storage.oldest)
                storage.evictions += 1
            }
        }
    }

    /// Drops the entry for `key`, returning its value.
    @discardableResult
    package func removeValue(forKey key: Key) -> Value? {
        storage.withLock { storage in
            guard let slot = storage.slots[key] else { return nil }
            let value = storage.entries[slot].value
            storage.remove(slot)
            return value
        }
    }

    /// Drops every entry; the counters are kept.
    package func removeAll() {
        storage.withLock { storage in
            storage.entries.removeAll()
            storage.slots.removeAll()
            storage.newest = Storage.none
            storage.oldest = Storage.none
            storage.totalCost = 0
        }
    }

    /// The counters and current size.
    package var statistics: CacheStatistics {
        storage.withLock { storage in
            CacheStatistics(
                hits: storage.hits, misses: storage.misses, evictions: storage.evictions, count: storage.entries.count,
                totalCost: storage.totalCost)
        }
    }

    /// The cached keys, most recently used first (for tests and diagnostics; does not count
    /// as use).
    package var keysByRecency: [Key] {
        storage.withLock { storage in
            var keys: [Key] = []
            var slot = storage.newest
            while slot != Storage.none {
                keys.append(storage.entries[slot].key)
                slot = storage.entries[slot].older
            }
            return keys
        }
    }

    /// One cached value, chained into the recency list by slot index.
    struct Entry {
        let key: Key
        var value: Value
        var cost: Int
        var newer = Storage.none
        var older = Storage.none
    }

    /// The entries in a dense array, their slots by key, and the recency chain's ends.
    struct Storage {
        /// The index that means "no entry".
        static var none: Int { -1 }

        var entries: [Entry] = []
        var slots: [Key: Int] = [:]
        var newest = Storage.none
        var oldest = Storage.none
        var totalCost = 0
        var hits = 0
        var misses = 0
        var evictions = 0

        mutating func insertNewest(_ entry: Entry) {
            let slot = entries.count
            entries.append(entry)
            slots[entry.key] = slot
            linkAsNewest(slot)
            totalCost += entry.cost
        }

        mutating func moveToNewest(_ slot: Int) {
            guard slot != newest else { return }
            unlink(slot)
            linkAsNewest(slot)
        }

        /// Removes the entry in `slot`, moving the last entry into the hole so the array stays
        /// dense.
        mutating func remove(_ slot: Int) {
            unlink(slot)
            totalCost -= entries[slot].cost
            slots[entries[slot].key] = nil
            let last = entries.count - 1
            if slot != last {
                entries.swapAt(slot, last)
                let moved = entries[slot]
                slots[moved.key] = slot
                if moved.newer != Self.none { entries[moved.newer].older = slot } else { newest = slot }
                if moved.older != Self.none { entries[moved.older].newer = slot } else { oldest = slot }
            }
            entries.removeLast()
        }

        private mutating func linkAsNewest(_ slot: Int) {
            entries[slot].newer = Self.none
            entries[slot].older = newest
            if newest != Self.none { entries[newest].newer = slot }
            newest = slot
            if oldest == Self.none { oldest = slot }
        }

        private mutating func unlink(_ slot: Int) {
            let entry = entries[slot]
            if entry.newer != Self.none { entries[entry.newer].older = entry.older } else { newest = entry.older }
            if entry.older != Self.none { entries[entry.older].newer = entry.newer } else { oldest = entry.newer }
            entries[slot].newer = Self.none
            entries[slot].older = Self.none
        }
    }
}

/// A cache's counters and current size.
public struct CacheStatistics: Sendable, Hashable {
    /// Lookups that found their entry.
    public var hits: Int
    /// Lookups that did not.
    public var misses: Int
    /// Entries dropped to keep within the limits.
    public var evictions: Int
    /// Entries held now.
    public var count: Int
    /// Their total cost now.
    public var totalCost: Int

    /// Counters and size as given.
    public init(hits: Int, misses: Int, evictions: Int, count: Int, totalCost: Int) {
        self.hits = hits
        self.misses = misses
        self.evictions = evictions
        self.count = count
        self.totalCost = totalCost
    }
}
