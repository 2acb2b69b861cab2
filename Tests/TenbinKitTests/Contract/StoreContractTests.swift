import Foundation
import Testing

@testable import TenbinKit

/// What every backend must do, the same way: each test runs on every backend of
/// `BackendUnderTest.all`, through `Board` only.
@Suite(.timeLimit(.minutes(10))) struct StoreContractTests {
    static let cat = Fixtures.sample("01-cats-or-dogs/1-cat.jpg")
    static let dog = Fixtures.sample("01-cats-or-dogs/2-dog.jpg")

    @Test(arguments: BackendUnderTest.all)
    func aPostedPosterReadsBackWhole(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let posted = try board.post(
            PosterDraft(image1: .file(Self.cat), image2: .file(Self.dog), contents: "猫か犬か", hashtags: ["#猫", "犬", "猫", " "]))
        #expect(posted.hashtags == ["猫", "犬"])
        #expect(try board.poster(id: posted.id) == posted)
        #expect(try board.posters() == [posted])
        #expect(try board.count() == 1)
        #expect(try board.blobBytes(posted.images[0].digest) == board.imageBytes(id: posted.id, side: .first).bytes)
        #expect(throws: BoardError.noSuchPoster(posted.id + 1)) { try board.poster(id: posted.id + 1) }
        #expect(try board.check().isSound)
    }

    @Test(arguments: BackendUnderTest.all)
    func eachImagesAltTextIsStoredAndReadBackByEveryRead(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let posted = try board.post(
            PosterDraft(image1: .file(Self.cat), image2: .file(Self.dog), contents: "どっち？", alt1: "A tabby cat on a sofa", alt2: "黒い柴犬"))
        #expect(posted.alt1 == "A tabby cat on a sofa" && posted.alt2 == "黒い柴犬")
        let plain = try board.quickPost("no alt text")
        #expect(plain.alt1.isEmpty && plain.alt2.isEmpty)
        #expect(try board.poster(id: posted.id) == posted)
        #expect(try board.posters(order: .new, limit: 10) == [plain, posted])
        #expect(try board.search(query: "どっち") == [posted])
        // A vote reads the poster back whole.
        let voted = try board.vote(id: posted.id, side: .second)
        #expect(voted.alt1 == posted.alt1 && voted.alt2 == posted.alt2 && voted.good2 == 1)
    }

    @Test(arguments: BackendUnderTest.all)
    func idsOnlyGrowAndAreNeverReused(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let first = try board.quickPost(["a", "b", "c"].map { ($0, []) })
        try board.delete(id: first[2].id)
        let next = try board.quickPost("d")
        #expect(next.id > first[2].id)
    }

    @Test(arguments: BackendUnderTest.all)
    func concurrentVotesAreCountedExactly(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let posters = try board.quickPost([("hot", []), ("cold", [])])
        // Direct votes from threads and group-committed votes from tasks, all at once.
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<100 {
                        let side: VoteSide = (worker + index) % 3 == 0 ? .second : .first
                        if worker % 2 == 0 {
                            _ = try? board.vote(id: posters[0].id, side: side)
                        } else {
                            _ = try? await board.castVote(id: posters[index % 2].id, side: side, times: 2)
                        }
                    }
                }
            }
        }
        let hot = try board.poster(id: posters[0].id)
        let cold = try board.poster(id: posters[1].id)
        var expected = (hot: (0, 0), cold: (0, 0))
        for worker in 0..<8 {
            for index in 0..<100 {
                let second = (worker + index) % 3 == 0
                if worker % 2 == 0 {
                    if second { expected.hot.1 += 1 } else { expected.hot.0 += 1 }
                } else if index % 2 == 0 {
                    if second { expected.hot.1 += 2 } else { expected.hot.0 += 2 }
                } else {
                    if second { expected.cold.1 += 2 } else { expected.cold.0 += 2 }
                }
            }
        }
        #expect(hot.good1 == expected.hot.0 && hot.good2 == expected.hot.1)
        #expect(cold.good1 == expected.cold.0 && cold.good2 == expected.cold.1)
        // That they took fewer commits than votes is VoteBatcherTests' to show: here it depends
        // on timing.
        #expect(board.votes.statistics.votes == 4 * 100 * 2)
        await #expect(throws: BoardError.noSuchPoster(999)) { try await board.castVote(id: 999, side: .first) }
        await #expect(throws: BoardError.invalidVoteCount(0)) { try await board.castVote(id: posters[0].id, side: .first, times: 0) }
    }

    @Test(arguments: BackendUnderTest.all)
    func aBatchOfVotesAddsEveryDeltaAndReturnsThePostersWholeWithoutTheDeletedOne(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let posters = try board.quickPost([("一", ["いち"]), ("二", []), ("三", ["さん", "3"])])
        try board.delete(id: posters[1].id)
        let deltas = [
            VoteDelta(id: posters[0].id, good1: 3, good2: 0), VoteDelta(id: posters[1].id, good1: 5, good2: 5),
            VoteDelta(id: posters[2].id, good1: 1, good2: 7),
        ]
        let voted = try board.store.write { try $0.addVotes(deltas) }
        var expected = [posters[0], posters[2]]
        expected[0].good1 = 3
        (expected[1].good1, expected[1].good2) = (1, 7)
        // The scores are trending order's (TrendingContractTests); here, that votes give one.
        #expect(voted.count == 2 && voted.allSatisfy { $0.trendingScore > 0 })
        for index in expected.indices where index < voted.count { expected[index].trendingScore = voted[index].trendingScore }
        #expect(voted == expected)
        #expect(try board.store.read { try $0.posters(ids: [posters[0].id, posters[2].id]) } == expected)
        #expect(try board.store.write { try $0.addVotes([]) }.isEmpty)
        #expect(try board.store.write { try $0.addVotes([VoteDelta(id: posters[1].id, good1: 1, good2: 0)]) }.isEmpty)
        #expect(try board.posters(order: .popular, limit: 10).map(\.totalVotes) == [8, 3])
        // The same in a transaction of its own.
        let committed = try board.store.commitVotes(deltas)
        expected[0].good1 = 6
        (expected[1].good1, expected[1].good2) = (2, 14)
        #expect(committed.count == 2 && zip(committed, expected).allSatisfy { $0.trendingScore > $1.trendingScore })
        for index in expected.indices where index < committed.count { expected[index].trendingScore = committed[index].trendingScore }
        #expect(committed == expected)
        #expect(try board.store.commitVotes([]).isEmpty)
        #expect(try board.store.commitVotes([VoteDelta(id: posters[1].id, good1: 0, good2: 1)]).isEmpty)
        #expect(try board.posters(order: .popular, limit: 10) == [expected[1], expected[0]])
    }

    @Test(arguments: BackendUnderTest.all)
    func aVoteForADeletedPosterFailsAloneAndTheRestOfItsBatchCommits(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        var configuration = store.configuration()
        // A window long enough that the votes below, queued one after another, share a batch
        // (a bound for a loaded machine: queueing six votes takes microseconds).
        configuration.voteBatching = VoteBatcher.Options(window: .seconds(2))
        let board = Board(configuration, store: try backend.make(store.path), blobs: BlobStore(storeFolder: store.path))
        let posters = try board.quickPost([("live", []), ("deleted", []), ("also live", [])])
        try board.delete(id: posters[1].id)
        let results = Locked<[Int64: [Result<Poster, any Error>]]>([:])
        let done = DispatchGroup()
        let votes: [(Int64, VoteSide)] = [
            (posters[0].id, .first), (posters[1].id, .first), (posters[2].id, .second), (posters[0].id, .second),
            (posters[1].id, .second), (posters[0].id, .first),
        ]
        for (id, side) in votes {
            done.enter()
            try board.castVote(id: id, side: side) { result in
                results.withLock { $0[id, default: []].append(result) }
                done.leave()
            }
        }
        await withCheckedContinuation { continuation in done.notify(queue: .global()) { continuation.resume() } }
        let answers = results.withLock { $0 }
        #expect(answers.values.map(\.count).reduce(0, +) == votes.count)
        for result in answers[posters[1].id] ?? [] {
            #expect(throws: BoardError.noSuchPoster(posters[1].id)) { try result.get() }
        }
        let first = try #require(answers[posters[0].id]).map { try $0.get() }
        #expect(first.count == 3 && first.allSatisfy { $0.good1 >= 1 && $0.good1 + $0.good2 <= 3 })
        #expect(try #require(answers[posters[2].id]).map { try $0.get().good2 } == [1])
        #expect(try board.poster(id: posters[0].id).good1 == 2 && board.poster(id: posters[0].id).good2 == 1)
        #expect(try board.poster(id: posters[2].id).good2 == 1)
        #expect(board.voteStatistics.votes == 4)
        #expect(board.voteStatistics.commits == 1, "the six votes shared one batch")
        #expect(throws: BoardError.invalidVoteCount(0)) { try board.castVote(id: posters[0].id, side: .first, times: 0) { _ in } }
    }

    @Test(arguments: BackendUnderTest.all)
    func pagesFollowTheOrderWithTiesToTheHigherIdAndCursorsNeverRepeatOrSkip(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let posters = try board.quickPost((0..<23).map { ("poster \($0)", []) })
        var random = SplitMix64(seed: 11)
        for poster in posters where random.next(upTo: 3) > 0 {
            try board.vote(id: poster.id, side: .first, times: random.next(upTo: 4) + 1)
        }
        let now = try posters.map { try board.poster(id: $0.id) }
        let newest = now.sorted { $0.id > $1.id }
        let popular = now.sorted { ($0.totalVotes, $0.id) > ($1.totalVotes, $1.id) }
        let trending = now.sorted { ($0.trendingScore, $0.id) > ($1.trendingScore, $1.id) }
        for (order, expected) in [(FeedOrder.new, newest), (.popular, popular), (.trending, trending)] {
            #expect(try board.posters(order: order, limit: 100) == expected)
            #expect(try board.posters(order: order, limit: 5, offset: 5) == Array(expected[5..<10]))
            // Every offset, including ones that pass all voted posters (SQLite reads popular
            // order from two indexes, voted posters' and unvoted ones').
            for offset in 0...(expected.count + 1) {
                let page = try board.posters(order: order, limit: 3, offset: offset)
                #expect(page == Array(expected.dropFirst(offset).prefix(3)), "\(order), offset \(offset)")
            }
            var cursor: PageCursor?
            var walked: [Poster] = []
            repeat {
                let page = try board.page(order: order, limit: 4, after: cursor)
                walked += page.posters
                cursor = page.next.flatMap { PageCursor(encoded: $0.encoded) }
            } while cursor != nil
            #expect(walked == expected, "\(order)")
        }
        // A poster arriving while someone scrolls neither repeats nor shifts the next page.
        let first = try board.page(order: .new, limit: 4)
        try board.quickPost("late")
        #expect(try board.page(order: .new, limit: 4, after: first.next).posters == Array(newest[4..<8]))
        let popularCursor = try board.page(order: .popular, limit: 4).next
        #expect(throws: BoardError.self) { try board.page(order: .new, limit: 4, after: popularCursor) }
        #expect(throws: BoardError.self) { try board.searchPage(query: "poster", order: .popular, after: popularCursor) }
    }

    @Test(arguments: BackendUnderTest.all)
    func searchEqualsABruteForceScanOfRandomPostersAndQueries(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        var random = SplitMix64(seed: 42)
        let pieces = ["猫", "ネコ", "ねこ", "ﾈｺ", "犬", "東京", "ＡＢＣ", "abc", "A", "ｷﾉｺ", "が", "ｶﾞ", "ー", " ", "1", "１", "#"]
        let texts: [(String, [String])] = (0..<200).map { _ in
            let text = (0..<random.next(upTo: 6)).map { _ in pieces[random.next(upTo: pieces.count)] }.joined()
            let tags = (0..<random.next(upTo: 3)).map { _ in
                pieces[random.next(upTo: pieces.count)] + pieces[random.next(upTo: pieces.count)]
            }
            return (text, tags)
        }
        let posters = try board.quickPost(texts)
        for poster in posters where random.next(upTo: 4) == 0 {
            try board.vote(id: poster.id, side: .second, times: random.next(upTo: 5) + 1)
        }
        let voted = try board.posters(order: .popular, limit: 1000)
        for _ in 0..<120 {
            let query = (0..<(1 + random.next(upTo: 3))).map { _ in
                (0..<(1 + random.next(upTo: 3))).map { _ in pieces[random.next(upTo: pieces.count - 3)] }.joined()
            }.joined(separator: " ")
            let words = SearchQuery(query).words
            let matching = voted.filter { poster in
                guard !words.isEmpty else { return false }
                // Each part as written and each stretch of its reading (猫 is also ねこ).
                let parts = ([poster.contents] + poster.hashtags).flatMap { part in
                    let surface = SearchText.normalize(part)
                    return [surface] + SearchReadings.lines(of: part, surface: surface)
                }
                return words.allSatisfy { word in parts.contains { $0.contains(word) } }
            }
            let newest = matching.sorted { $0.id > $1.id }.map(\.id)
            #expect(try board.search(query: query, limit: 1000).map(\.id) == newest, "query \(query)")
            #expect(try board.search(query: query, order: .popular, limit: 1000).map(\.id) == matching.map(\.id), "popular \(query)")
            #expect(try board.scanSearchIDs(query: query) == newest, "scan \(query)")
            var cursor: PageCursor?
            var walked: [Int64] = []
            repeat {
                let page = try board.searchPage(query: query, order: .popular, limit: 3, after: cursor)
                walked += page.posters.map(\.id)
                cursor = page.next
            } while cursor != nil
            #expect(walked == matching.map(\.id), "pages of \(query)")
        }
    }

    @Test(arguments: BackendUnderTest.all)
    func anEditKeepsIdImagesAndVotesAndSearchFollowsIt(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let poster = try board.quickPost("きのこ派", hashtags: ["きのこ"])
        try board.vote(id: poster.id, side: .second, times: 3)
        let edited = try board.edit(id: poster.id, contents: "たけのこ派", hashtags: ["＃タケノコ", "タケノコ"])
        #expect(edited.id == poster.id && edited.images == poster.images && edited.good2 == 3)
        #expect(edited.hashtags == ["タケノコ"])
        #expect(try board.search(query: "きのこ").isEmpty)
        #expect(try board.search(query: "ﾀｹﾉｺ").map(\.id) == [poster.id])
        #expect(throws: BoardError.noSuchPoster(99)) { try board.edit(id: 99, contents: "", hashtags: []) }
        #expect(try board.searchKeyProblems().isEmpty)
    }

    @Test(arguments: BackendUnderTest.all)
    func deleteAndGCNeverRemoveABlobAPosterStillUses(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let draft = PosterDraft(image1: .file(Self.cat), image2: .file(Self.dog))
        let kept = try board.post(draft)
        // Posting, deleting and collecting the same images at once, many times over.
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { for _ in 0..<15 { try board.delete(id: try board.post(draft).id) } }
            group.addTask { for _ in 0..<15 { _ = try board.collectGarbage() } }
            group.addTask { for _ in 0..<15 { _ = try board.post(draft) } }
            try await group.waitForAll()
        }
        #expect(try board.check().isSound)
        #expect(try board.blobBytes(kept.images[0].digest).count == kept.images[0].bytes)
        let report = try board.collectGarbage()
        #expect(report.removedBlobs.isEmpty)
        #expect(try board.check().isSound)
    }

    @Test(arguments: BackendUnderTest.all)
    func importFindsAPosterAlreadyStoredOrEarlierInTheBatch(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let images = try [Self.cat, Self.dog].map { try board.writeBlob(try board.prepare(.file($0))).stored }
        let a = NewPoster(contents: "q", hashtags: ["#x", "y"], images: images)
        let b = NewPoster(contents: "q", hashtags: ["y", "x"], images: images)
        let c = NewPoster(contents: "q", hashtags: ["x", "y"], images: images.reversed())
        let outcomes = try board.commitImport([a, b, a, c, b], images: [])
        guard case .inserted(let first) = outcomes[0], case .inserted(let second) = outcomes[1], case .inserted(let third) = outcomes[3]
        else {
            Issue.record("expected insertions, got \(outcomes)")
            return
        }
        #expect(outcomes == [.inserted(first), .inserted(second), .existing(first), .inserted(third), .existing(second)])
        #expect(try board.commitImport([b], images: []) == [.existing(second)])
        #expect(try board.count() == 3)
    }

    @Test(arguments: BackendUnderTest.all)
    func aBatchInsertGivesAscendingIdsInOrderAndABatchLookupFindsEachPostersCandidates(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let images = Board.standInImages
        let stored = try board.quickPost([("q", ["a"]), ("q", ["b"]), ("r", [])])
        let batch = [
            NewPoster(contents: "q", hashtags: ["c", "a"], images: images), NewPoster(contents: "", hashtags: [], images: images),
            NewPoster(contents: "q", hashtags: ["a"], images: images.reversed()),
            NewPoster(contents: "q\u{0}東", hashtags: ["Ｘ", "y z", "\"'\\,{}"], images: images),
        ]
        let records = batch.map { SearchRecord(contents: $0.contents, hashtags: $0.hashtags) }
        let createdAt = Timestamp(secondsSince1970: 1_700_000_000)
        let (ids, inside) = try board.store.write { writing in
            let ids = try writing.insertPosters(batch, createdAt: createdAt, search: records)
            // A lookup in the same transaction sees the batch's own posters.
            return (ids, try writing.posterIDs(matching: batch + [NewPoster(contents: "s", hashtags: [], images: images)]))
        }
        #expect(ids.count == 4 && ids == ids.sorted() && Set(ids).count == 4 && ids[0] > stored.map(\.id).max()!)
        #expect(inside == [[stored[0].id, stored[1].id, ids[0]], [ids[1]], [ids[2]], [ids[3]], []])
        let read = try board.store.read { try $0.posters(ids: ids) }
        #expect(read.map(\.contents) == batch.map(\.contents))
        #expect(read.map(\.hashtags) == batch.map(\.hashtags))
        #expect(read.map(\.images) == batch.map(\.images))
        #expect(read.allSatisfy { $0.createdAt == createdAt && $0.totalVotes == 0 })
        #expect(
            try board.store.read { try $0.posterIDs(matching: [batch[3], batch[0]]) } == [[ids[3]], [stored[0].id, stored[1].id, ids[0]]])
        #expect(try board.store.write { try $0.insertPosters([], createdAt: createdAt, search: []) } == [])
        #expect(try board.store.read { try $0.posterIDs(matching: []) } == [])
        #expect(try board.search(query: "東").map(\.id) == [ids[3]])
        #expect(try board.search(query: "y z").map(\.id) == [ids[3]])
        // (The stand-in images have rows but no files, so only the database's own checks apply.)
        #expect(try board.store.integrityProblems().isEmpty)
    }

    @Test(arguments: BackendUnderTest.all)
    func anImportBatchAgainstStoredPostersAddsOnlyTheNewOnesOnceEach(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let images = Board.standInImages
        let stored = try board.quickPost([("one", ["x"]), ("two", []), ("one", ["x"])])
        let poster = { (contents: String, hashtags: [String]) in NewPoster(contents: contents, hashtags: hashtags, images: images) }
        // Stored (twice: the lowest id wins), new, new again, stored with other hashtags, new twice in a row.
        let outcomes = try board.commitImport(
            [
                poster("one", ["x"]), poster("three", []), poster("three", []), poster("two", ["y"]), poster("two", []),
                poster("e\u{301}", []),
            ]
                + [poster("\u{e9}", []), poster("\u{e9}", [])], images: [])
        guard case .inserted(let three) = outcomes[1], case .inserted(let twoY) = outcomes[3], case .inserted(let decomposed) = outcomes[5],
            case .inserted(let composed) = outcomes[6]
        else {
            Issue.record("expected insertions, got \(outcomes)")
            return
        }
        #expect(
            outcomes == [
                .existing(stored[0].id), .inserted(three), .existing(three), .inserted(twoY), .existing(stored[1].id),
                .inserted(decomposed), .inserted(composed), .existing(composed),
            ])
        #expect([three, twoY, decomposed, composed] == [three, twoY, decomposed, composed].sorted())
        #expect(try board.poster(id: twoY).hashtags == ["y"])
        #expect(
            try board.commitImport([poster("three", []), poster("\u{e9}", [])], images: []) == [.existing(three), .existing(composed)])
        #expect(try board.count() == 7)
    }

    @Test(arguments: BackendUnderTest.all, [FeedOrder.popular, .trending])
    func aFeedDeliversItsSnapshotThenDiffsThatRebuildIt(backend: BackendUnderTest, order: FeedOrder) async throws {
        let store = try TemporaryStore()
        let clock = VirtualClock()
        let board = try backend.board(store, live: LiveFeeds.Options(interval: .milliseconds(50), clock: clock))
        try board.quickPost([("a", []), ("b", []), ("c", [])])
        let feed = Feed(order: order, limit: 3)
        let recorder = LiveRecorder()
        let observation = try board.observe(feed)
        let task = Task { for try await update in observation { recorder.record(update) } }
        var replayed: [Poster] = []
        var random = SplitMix64(seed: 5)
        for step in 0..<30 {
            await clock.untilSomeoneSleeps()
            await waitUntil("the observer to wait for more") { board.live.waitingObserverCount >= 1 }
            if step == 0 { replayed = try #require(recorder.delivered.first?.snapshot) }
            let before = recorder.delivered.count
            let ids = try board.posters(limit: 100).map(\.id)
            switch random.next(upTo: 3) {
            case 0: try board.quickPost("step \(step)")
            case 1: try board.vote(id: ids[random.next(upTo: ids.count)], side: .first, times: random.next(upTo: 3) + 1)
            default: if ids.count > 2 { try board.delete(id: ids[random.next(upTo: ids.count)]) }
            }
            clock.advance(by: .milliseconds(50))
            await clock.untilSomeoneSleeps()
            await waitUntil("the observer to wait for more") { board.live.waitingObserverCount >= 1 }
            for update in recorder.delivered[before...] {
                replayed = try FeedDiff.apply(try #require(update.changes), to: replayed)
            }
            #expect(replayed == (try board.posters(order: order, limit: 3)), "step \(step)")
        }
        task.cancel()
        try await task.value
    }

    @Test(arguments: BackendUnderTest.all)
    func rebuildingSearchKeepsEveryAnswer(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let posters = try board.quickPost((0..<30).map { ("ねこ \($0) ネコ派", $0 % 3 == 0 ? ["犬"] : []) })
        _ = try board.edit(id: posters[1].id, contents: "いぬ 1")
        _ = try board.delete(id: posters[2].id)
        _ = try board.vote(id: posters[4].id, side: .first, times: 3)
        let queries = ["ね", "ねこ", "犬", "いぬ", "派 1", "ない"]
        func answers() throws -> [[Int64]] {
            try queries.flatMap { query in
                try [FeedOrder.new, .popular].map { try board.search(query: query, order: $0, limit: 100).map(\.id) }
            }
        }
        let before = try answers()
        #expect(before[0].count == 28, "\(before[0].count)")
        // いぬ is the edited poster's text, and the reading of every #犬 (search by reading).
        let dogs = posters.enumerated().filter { $0.offset == 1 || $0.offset % 3 == 0 }.map(\.element.id)
        #expect(before[6] == dogs.sorted(by: >), "\(before[6])")
        // (The stand-in images have no files: those problems are not search's.)
        let report = try board.check(repairingSearch: true)
        #expect(report.searchRebuilt == 29)
        #expect(report.problems.filter { !$0.hasPrefix("blob ") }.isEmpty, "\(report.problems)")
        #expect(try answers() == before)
        // Posters written and edited after the rebuild are found as before.
        let late = try board.quickPost("ねこ late")
        _ = try board.edit(id: posters[3].id, contents: "とら 3")
        #expect(try board.search(query: "late").map(\.id) == [late.id])
        #expect(try board.search(query: "とら").map(\.id) == [posters[3].id])
        #expect(try board.rebuildSearch() == 30)
        #expect(try board.search(query: "ねこ", limit: 100).count == 28)
    }
}
