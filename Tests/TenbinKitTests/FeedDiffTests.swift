import Testing

@testable import TenbinKit

@Suite struct FeedDiffTests {
    static let images = [
        StoredImage(digest: Digest(of: [1]), format: .jpeg, width: 1, height: 1, bytes: 1),
        StoredImage(digest: Digest(of: [2]), format: .png, width: 1, height: 1, bytes: 1),
    ]

    static func poster(_ id: Int64, _ good1: Int = 0, _ good2: Int = 0, contents: String = "") -> Poster {
        Poster(
            id: id, contents: contents, hashtags: [], good1: good1, good2: good2, createdAt: Timestamp(secondsSince1970: id),
            images: images)
    }

    func check(_ old: [Poster], _ new: [Poster], sourceLocation: SourceLocation = #_sourceLocation) throws -> [FeedChange] {
        let changes = FeedDiff.changes(from: old, to: new)
        #expect(try FeedDiff.apply(changes, to: old) == new, sourceLocation: sourceLocation)
        return changes
    }

    @Test func equalSnapshotsHaveNoChanges() throws {
        let feed = [Self.poster(3), Self.poster(2), Self.poster(1)]
        #expect(try check(feed, feed).isEmpty)
        #expect(try check([], []).isEmpty)
    }

    @Test func aVoteThatLiftsAPosterIsOneModificationWithBothPositions() throws {
        let old = [Self.poster(3, 5), Self.poster(2, 3), Self.poster(1, 3)]
        let new = [Self.poster(1, 6), Self.poster(3, 5), Self.poster(2, 3)]
        #expect(try check(old, new) == [.modified(Self.poster(1, 6), oldIndex: 2, newIndex: 0)])
    }

    @Test func aVoteThatKeepsThePlaceIsAModificationInPlace() throws {
        let old = [Self.poster(2), Self.poster(1)]
        let new = [Self.poster(2, 0, 1), Self.poster(1)]
        #expect(try check(old, new) == [.modified(Self.poster(2, 0, 1), oldIndex: 0, newIndex: 0)])
    }

    @Test func aNewPosterOnAFullFeedPushesTheLastOneOut() throws {
        let old = [Self.poster(3), Self.poster(2), Self.poster(1)]
        let new = [Self.poster(4), Self.poster(3), Self.poster(2)]
        #expect(try check(old, new) == [.removed(Self.poster(1), oldIndex: 2), .added(Self.poster(4), newIndex: 0)])
    }

    @Test func aDeletionLetsTheNextPosterIn() throws {
        let old = [Self.poster(5), Self.poster(4), Self.poster(3)]
        let new = [Self.poster(5), Self.poster(3), Self.poster(2)]
        #expect(try check(old, new) == [.removed(Self.poster(4), oldIndex: 1), .added(Self.poster(2), newIndex: 2)])
    }

    @Test func removalsComeFirstByDescendingOldIndex() throws {
        let old = (1...6).map { Self.poster(Int64($0)) }
        let new = [Self.poster(2), Self.poster(4)]
        let changes = try check(old, new)
        #expect(changes.map(\.oldIndex) == [5, 4, 2, 0])
    }

    @Test func unchangedPostersThatSwapAreReportedOnceAsAMove() throws {
        let old = [Self.poster(1), Self.poster(2), Self.poster(3), Self.poster(4)]
        let new = [Self.poster(4), Self.poster(1), Self.poster(2), Self.poster(3)]
        #expect(try check(old, new) == [.modified(Self.poster(4), oldIndex: 3, newIndex: 0)])
    }

    @Test func aPosterFallingFromTheTopLandsBehindItsNewPredecessor() throws {
        let old = [Self.poster(1, 9), Self.poster(2, 5), Self.poster(3, 4), Self.poster(4, 3)]
        let new = [Self.poster(2, 5), Self.poster(3, 4), Self.poster(4, 3), Self.poster(1, 0, 1)]
        #expect(try check(old, new) == [.modified(Self.poster(1, 0, 1), oldIndex: 0, newIndex: 3)])
    }

    @Test func applyingAChangeSetToAnotherSnapshotThrowsNamingTheChange() {
        let changes = [FeedChange.removed(Self.poster(9), oldIndex: 0)]
        #expect(throws: FeedChangeError.self) { try FeedDiff.apply(changes, to: [Self.poster(1)]) }
        #expect(throws: FeedChangeError.self) { try FeedDiff.apply([.added(Self.poster(2), newIndex: 3)], to: [Self.poster(1)]) }
        do {
            _ = try FeedDiff.apply(changes, to: [Self.poster(1)])
        } catch {
            #expect(error.description.contains("poster 9"))
        }
    }

    @Test func diffsOfArbitraryListsRebuildTheNewList() throws {
        for seed in 0..<400 {
            var random = SplitMix64(seed: UInt64(seed))
            let universe = (1...Int64(Int.random(in: 1...30, using: &random))).map { id in
                Self.poster(id, Int.random(in: 0...2, using: &random))
            }
            func someList() -> [Poster] {
                universe.shuffled(using: &random).prefix(Int.random(in: 0...universe.count, using: &random)).map { poster in
                    var poster = poster
                    if Bool.random(using: &random) { poster.good2 += Int.random(in: 0...1, using: &random) }
                    return poster
                }
            }
            let old = someList()
            let new = someList()
            let changes = FeedDiff.changes(from: old, to: new)
            #expect(try FeedDiff.apply(changes, to: old) == new, "seed \(seed)")
        }
    }

    /// Random posts, votes and deletes on a model board; every feed of every step must be
    /// rebuilt exactly from the previous one and its change set, and only posters that came,
    /// went or changed are mentioned.
    @Test func diffsBetweenFeedsAfterRandomPostsVotesAndDeletesAreExactAndMinimal() throws {
        for seed in 0..<120 {
            var random = SplitMix64(seed: UInt64(seed) &* 7919)
            var model = ModelBoard()
            let feeds = FeedOrder.allCases.flatMap { order in [1, 3, 10, 1000].map { (order, $0) } }
            var previous = feeds.map { model.feed($0.0, limit: $0.1) }
            for step in 0..<60 {
                for _ in 0..<Int.random(in: 1...3, using: &random) { model.randomOperation(using: &random) }
                for (slot, (order, limit)) in feeds.enumerated() {
                    let old = previous[slot]
                    let new = model.feed(order, limit: limit)
                    let changes = FeedDiff.changes(from: old, to: new)
                    #expect(try FeedDiff.apply(changes, to: old) == new, "seed \(seed) step \(step) \(order) \(limit)")
                    let oldByID = Dictionary(uniqueKeysWithValues: old.map { ($0.id, $0) })
                    for case .modified(let poster, _, _) in changes {
                        #expect(oldByID[poster.id] != poster, "seed \(seed) step \(step): unchanged poster \(poster.id) reported")
                    }
                    let mentioned = Set(changes.map(\.poster.id))
                    let expected = Set(old.map(\.id)).symmetricDifference(new.map(\.id))
                        .union(new.filter { poster in oldByID[poster.id].map { $0 != poster } ?? false }.map(\.id))
                    #expect(mentioned == expected, "seed \(seed) step \(step) \(order) \(limit)")
                    previous[slot] = new
                }
            }
        }
    }
}

/// The board's posters as plain values, with tenbin's orders.
struct ModelBoard {
    var posters: [Int64: Poster] = [:]
    var nextID: Int64 = 1

    func feed(_ order: FeedOrder, limit: Int) -> [Poster] {
        let sorted = posters.values.sorted { a, b in
            switch order {
            case .new: return a.id > b.id
            case .popular: return a.totalVotes != b.totalVotes ? a.totalVotes > b.totalVotes : a.id > b.id
            case .trending: return a.trendingScore != b.trendingScore ? a.trendingScore > b.trendingScore : a.id > b.id
            }
        }
        return Array(sorted.prefix(limit))
    }

    mutating func randomOperation(using random: inout SplitMix64) {
        let roll = Int.random(in: 0..<10, using: &random)
        if posters.isEmpty || roll < 3 {
            posters[nextID] = FeedDiffTests.poster(nextID)
            nextID += 1
        } else if roll < 9 {
            let id = posters.keys.sorted()[Int.random(in: 0..<posters.count, using: &random)]
            if Bool.random(using: &random) {
                posters[id]?.good1 += Int.random(in: 1...3, using: &random)
            } else {
                posters[id]?.good2 += 1
            }
        } else {
            posters.removeValue(forKey: posters.keys.sorted()[Int.random(in: 0..<posters.count, using: &random)])
        }
    }
}
