import Testing

@testable import TenbinKit

@Suite struct LRUCacheTests {
    @Test func theLeastRecentlyUsedEntryIsEvictedFirst() {
        let cache = LRUCache<String, Int>(costLimit: 1000, countLimit: 3)
        cache.setValue(1, forKey: "a", cost: 1)
        cache.setValue(2, forKey: "b", cost: 1)
        cache.setValue(3, forKey: "c", cost: 1)
        #expect(cache.value(forKey: "a") == 1)  // a is now the newest; b the oldest
        cache.setValue(4, forKey: "d", cost: 1)
        #expect(cache.keysByRecency == ["d", "a", "c"])
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.statistics.evictions == 1)
    }

    @Test func settingAKeyAgainReplacesItsValueAndCost() {
        let cache = LRUCache<String, String>(costLimit: 1000, countLimit: 10)
        cache.setValue("old", forKey: "a", cost: 60)
        cache.setValue("other", forKey: "b", cost: 30)
        cache.setValue("new", forKey: "a", cost: 10)
        #expect(cache.statistics.totalCost == 40)
        #expect(cache.statistics.count == 2)
        #expect(cache.value(forKey: "a") == "new")
        #expect(cache.keysByRecency == ["a", "b"])
    }

    @Test func theCostLimitEvictsOldestEntriesUntilTheTotalFits() {
        let cache = LRUCache<Int, Int>(costLimit: 100, countLimit: 100)
        for key in 0..<10 { cache.setValue(key, forKey: key, cost: 10) }
        #expect(cache.statistics.totalCost == 100)
        cache.setValue(10, forKey: 10, cost: 10)
        cache.setValue(11, forKey: 11, cost: 5)
        #expect(cache.keysByRecency == [11, 10, 9, 8, 7, 6, 5, 4, 3, 2])
        #expect(cache.statistics.totalCost == 95)
        #expect(cache.statistics.evictions == 2)
    }

    @Test func growingAnEntryByOverwritingEvictsTheOldestOthers() {
        let cache = LRUCache<Int, Int>(costLimit: 1000, countLimit: 100)
        for key in 0..<12 { cache.setValue(key, forKey: key, cost: key == 5 ? 10 : 90) }
        #expect(cache.statistics.totalCost == 1000)
        #expect(cache.statistics.evictions == 0)
        cache.setValue(5, forKey: 5, cost: 100)
        #expect(cache.keysByRecency == [5, 11, 10, 9, 8, 7, 6, 4, 3, 2, 1])
        #expect(cache.statistics.totalCost == 1000)
        #expect(cache.statistics.evictions == 1)
    }

    @Test func theCountLimitHoldsWhateverTheCosts() {
        let cache = LRUCache<Int, Int>(costLimit: 1_000_000, countLimit: 4)
        for key in 0..<10 { cache.setValue(key, forKey: key, cost: 0) }
        #expect(cache.keysByRecency == [9, 8, 7, 6])
        #expect(cache.statistics.count == 4)
        #expect(cache.statistics.evictions == 6)
    }

    @Test func anEntryCostingMoreThanATenthOfTheLimitIsNotCached() {
        let cache = LRUCache<String, Int>(costLimit: 105, countLimit: 10)
        cache.setValue(1, forKey: "small", cost: 10)
        cache.setValue(2, forKey: "big", cost: 11)
        #expect(cache.value(forKey: "big") == nil)
        #expect(cache.value(forKey: "small") == 1)
        #expect(cache.statistics.evictions == 0)
    }

    @Test func anOversizeValueDropsTheStaleEntryUnderItsKey() {
        let cache = LRUCache<String, Int>(costLimit: 100, countLimit: 10)
        cache.setValue(1, forKey: "a", cost: 5)
        cache.setValue(2, forKey: "a", cost: 50)
        #expect(cache.value(forKey: "a") == nil)
        #expect(cache.statistics.totalCost == 0)
    }

    @Test func hitsAndMissesAreCounted() {
        let cache = LRUCache<Int, Int>(costLimit: 100, countLimit: 10)
        cache.setValue(1, forKey: 1, cost: 1)
        _ = cache.value(forKey: 1)
        _ = cache.value(forKey: 1)
        _ = cache.value(forKey: 2)
        #expect(cache.statistics == CacheStatistics(hits: 2, misses: 1, evictions: 0, count: 1, totalCost: 1))
    }

    @Test func removingKeepsTheRecencyChainWhole() {
        let cache = LRUCache<Int, Int>(costLimit: 1000, countLimit: 100)
        for key in 0..<6 { cache.setValue(key, forKey: key, cost: key) }
        #expect(cache.removeValue(forKey: 0) == 0)  // the oldest, moved over by the last slot
        #expect(cache.removeValue(forKey: 3) == 3)
        #expect(cache.removeValue(forKey: 5) == 5)  // the newest
        #expect(cache.removeValue(forKey: 42) == nil)
        #expect(cache.keysByRecency == [4, 2, 1])
        #expect(cache.statistics.totalCost == 7)
        cache.setValue(9, forKey: 9, cost: 1)
        _ = cache.value(forKey: 1)
        #expect(cache.keysByRecency == [1, 9, 4, 2])
        cache.removeAll()
        #expect(cache.keysByRecency.isEmpty)
        #expect(cache.statistics.totalCost == 0)
    }

    @Test func concurrentUseKeepsTheCountsAndLimitsConsistent() async {
        let cache = LRUCache<Int, Int>(costLimit: 10_000, countLimit: 64)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for step in 0..<2000 {
                        let key = (worker * 7919 + step * 31) % 200
                        if step % 3 == 0 {
                            cache.setValue(key, forKey: key, cost: key % 50)
                        } else if let value = cache.value(forKey: key) {
                            #expect(value == key)
                        }
                    }
                }
            }
        }
        let statistics = cache.statistics
        #expect(statistics.hits + statistics.misses == 8 * 2000 - 8 * 667)
        #expect(statistics.count <= 64)
        #expect(statistics.totalCost <= 10_000)
        let keys = cache.keysByRecency
        #expect(keys.count == statistics.count)
        #expect(Set(keys).count == keys.count)
        #expect(keys.reduce(0) { $0 + $1 % 50 } == statistics.totalCost)
    }

    @Test func defaultLimitsAreAShareOfMemoryWithinBounds() {
        #expect(CacheLimits.scaled(toPhysicalMemory: 1 << 30).bytes == 64 << 20)
        #expect(CacheLimits.scaled(toPhysicalMemory: 64 << 30).bytes == 256 << 20)
        #expect(CacheLimits.scaled(toPhysicalMemory: 128 << 20).bytes == 16 << 20)
        #expect(CacheLimits.default.bytes >= 16 << 20)
    }
}
