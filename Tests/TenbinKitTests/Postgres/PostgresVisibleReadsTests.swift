import Testing

@testable import TenbinKit
@testable import TenbinPostgres

/// Pages and searches of what the public may see, answered by PostgreSQL with the hidden
/// posters left out in the statement itself (no read of the hidden posters first), and searches
/// answered from the kept segment list and blocks in one statement that checks the list: a
/// poster hidden, a segment written, or a merge begun by another process is seen by the very
/// next read, with no wait for a notification.
@Suite(.enabled(if: TestPostgres.isAvailable), .timeLimit(.minutes(10)))
struct PostgresVisibleReadsTests {
    /// Two stores on one database, as two server processes have: `board` reads, `other` writes.
    final class Fixture {
        let folder: TemporaryStore
        let url: String
        let store: PostgresStore
        let board: Board
        let otherStore: PostgresStore
        let other: Board

        init() throws {
            folder = try TemporaryStore()
            url = try TestPostgres.freshDatabase()
            store = try PostgresStore(url: url, poolSize: 2)
            board = Board(folder.configuration(), store: store, blobs: BlobStore(storeFolder: folder.path))
            otherStore = try PostgresStore(url: url, poolSize: 2, migrate: false)
            other = Board(folder.configuration(), store: otherStore, blobs: BlobStore(storeFolder: folder.path))
        }

        deinit {
            board.close()
            other.close()
        }

        @discardableResult
        func addBatch(_ texts: [String], to store: PostgresStore? = nil) throws -> [Int64] {
            try PostgresSearchIndexTests.Fixture.addBatch(texts, to: store ?? self.store)
        }

        /// The scan's answer without the hidden posters.
        func expected(_ query: String, limit: Int = 20, offset: Int = 0) throws -> [Int64] {
            let hidden = try Board.hiddenIDs(in: store)
            return Array(try board.scanSearchIDs(query: query).filter { !hidden.contains($0) }.dropFirst(offset).prefix(limit))
        }
    }

    @Test func aPosterHiddenThroughAnotherStoreLeavesTheVeryNextPageAndSearch() throws {
        let s = try Fixture()
        // A word in one poster of eight, in more posters than a search's first walk reads
        // (128) and too few there for a page, so its blocks are read and kept.
        let ids = try s.addBatch((0..<400).map { "\($0 % 8 == 7 ? "猫" : "犬") \($0)" })
        let cats = ids.enumerated().filter { $0.offset % 8 == 7 }.map(\.element).reversed()
        // Warm: the segment list and blocks kept, the search answered from them; a word of
        // three characters too (every hit's key read with its row and rechecked).
        #expect(try s.board.search(query: "猫").map(\.id) == Array(cats.prefix(20)))
        #expect(try s.board.search(query: "猫").map(\.id) == Array(cats.prefix(20)))
        #expect(s.store.keptSearches.answered >= 1)
        #expect(try s.board.search(query: "猫 399").map(\.id) == [cats.first!])
        #expect(try s.board.search(query: "猫 399").map(\.id) == [cats.first!])
        #expect(try s.board.search(query: "猫 99").map(\.id) == (try s.expected("猫 99")))
        let newest = ids.last!
        try s.other.hide(id: newest, actor: "moderator")
        // No wait for the other store's notification: the very next reads leave it out.
        let page = try s.board.posters(order: .new, limit: 20).map(\.id)
        #expect(!page.contains(newest))
        #expect(page == Array(ids.reversed().dropFirst().prefix(20)))
        let answered = s.store.keptSearches.answered
        try s.other.hide(id: cats.first!, actor: "moderator")
        let found = try s.board.search(query: "猫").map(\.id)
        #expect(!found.contains(cats.first!))
        #expect(found == Array(cats.dropFirst().prefix(20)))
        #expect(try s.board.search(query: "猫 399").isEmpty)
        // Answered in one statement each from what was kept (the hidden posters are not kept).
        #expect(s.store.keptSearches.answered == answered + 2)
        #expect(try s.board.search(query: "猫", limit: 5, offset: 3).map(\.id) == (try s.expected("猫", limit: 5, offset: 3)))
        // Shown again: back in the very next reads.
        try s.other.restore(id: newest, actor: "moderator")
        #expect(try s.board.posters(order: .new, limit: 20).map(\.id).first == newest)
        try s.other.restore(id: cats.first!, actor: "moderator")
        #expect(try s.board.search(query: "猫").map(\.id).first == cats.first!)
    }

    @Test func pagesLeaveHiddenPostersOutBeforeCountingTheOffsetInEveryOrder() throws {
        let s = try Fixture()
        let ids = try s.addBatch((0..<40).map { "犬 \($0)" })
        // Votes (before any is hidden: a hidden poster's are refused) put popular and trending
        // order apart from new.
        let deltas = ids.enumerated().filter { $0.offset % 3 == 0 }.map {
            VoteDelta(id: $0.element, good1: $0.offset, good2: $0.offset % 5)
        }
        _ = try s.store.commitVotes(deltas)
        let hidden = Set(ids.enumerated().filter { $0.offset % 4 == 1 }.map(\.element))
        for id in hidden { try s.other.hide(id: id, actor: "moderator") }
        for order in [FeedOrder.new, .popular, .trending] {
            let all = try s.store.readSingle { try $0.page(order: order, after: nil, offset: 0, limit: 1000) }
            let visible = all.filter { !hidden.contains($0.id) }
            for offset in [0, 1, 5, 29] {
                let page = try s.board.posters(order: order, limit: 7, offset: offset).map(\.id)
                #expect(page == Array(visible.dropFirst(offset).prefix(7)).map(\.id), "\(order), offset \(offset)")
            }
            // After a position, as a cursor's page reads.
            let after = FeedPosition(visible[4])
            let store: any StoreBackend = s.store
            #expect(
                try store.visiblePage(order: order, after: after, offset: 0, limit: 6)?.map(\.id)
                    == Array(visible.dropFirst(5).prefix(6)).map(\.id),
                "\(order) after the fifth")
        }
    }

    @Test func aCommonWordsPageIsReadFromTheNewestPostersInOneStatementWithoutTheHiddenOnes() throws {
        let s = try Fixture()
        let ids = try s.addBatch((0..<300).map { "\($0 % 2 == 0 ? "猫" : "犬") \($0)" })
        #expect(try s.board.search(query: "猫").map(\.id) == (try s.expected("猫")))
        let walked = s.store.keptSearches.walked
        #expect(walked >= 1)
        // Hidden through the other store: left out, and the page still full.
        try s.other.hide(id: ids[298], actor: "moderator")
        #expect(try s.board.search(query: "猫").map(\.id) == (try s.expected("猫")))
        #expect(try s.board.search(query: "猫", limit: 7, offset: 4).map(\.id) == (try s.expected("猫", limit: 7, offset: 4)))
        #expect(s.store.keptSearches.walked == walked + 2)
        // A poster whose key is missing (a damaged store) is no match, as the walk in a read has it.
        try s.store.pool.withConnection { connection in
            try connection.query("UPDATE poster SET walk_key = NULL WHERE id = \(ids[296])")
            try connection.query("DELETE FROM search_key WHERE poster_id = \(ids[296])")
        }
        #expect(try s.board.search(query: "猫").map(\.id) == (try s.expected("猫")))
        #expect(s.store.keptSearches.walked == walked + 3)
        // Too few matches among the newest posters: the search is done in a read.
        #expect(try s.board.search(query: "猫 98").map(\.id) == (try s.expected("猫 98")))
        #expect(s.store.keptSearches.walked == walked + 3)
        // A store with nothing kept, a page larger than the newest posters' walk: the search in
        // a read, whose walk leaves the hidden poster out by the hidden posters' ids.
        let fresh = try PostgresStore(url: s.url, poolSize: 1, migrate: false)
        defer { fresh.close() }
        let third = Board(s.folder.configuration(), store: fresh, blobs: BlobStore(storeFolder: s.folder.path))
        #expect(try third.search(query: "猫", limit: 130).map(\.id) == (try s.expected("猫", limit: 130)))
        #expect(fresh.keptSearches == (answered: 0, outdated: 0, walked: 0))
    }

    @Test func aSegmentWrittenThroughAnotherStoreIsInTheVeryNextSearch() throws {
        let s = try Fixture()
        try s.addBatch((0..<400).map { "\($0 % 8 == 7 ? "鳥" : "犬") \($0)" })
        #expect(try s.board.search(query: "鳥").map(\.id) == (try s.expected("鳥")))
        #expect(try s.board.search(query: "鳥").map(\.id) == (try s.expected("鳥")))
        // A word no kept segment holds: an answer of nothing is checked too.
        #expect(try s.board.search(query: "魚").isEmpty)
        #expect(try s.board.search(query: "魚").isEmpty)
        let answered = s.store.keptSearches.answered
        #expect(answered >= 2)
        // Another process writes a segment: this store's kept list is one segment short.
        let added = try s.addBatch(["鳥 新", "魚 新"], to: s.otherStore)
        // The word no kept segment held first: its answer of nothing from the kept list would
        // be wrong now, and the statement checking the list says so.
        #expect(try s.board.search(query: "魚").map(\.id) == [added[1]])
        #expect(try s.board.search(query: "鳥").map(\.id).first == added[0])
        #expect(s.store.keptSearches.outdated >= 1)
        // The read that found the list outdated kept the new one: kept again from then on.
        let before = s.store.keptSearches.answered
        #expect(try s.board.search(query: "鳥").map(\.id) == (try s.expected("鳥")))
        #expect(try s.board.search(query: "魚").map(\.id) == [added[1]])
        #expect(s.store.keptSearches.answered == before + 2)
        // Words of three characters: a poster holding every piece of the word but not the word
        // is no match (every hit rechecked), from kept state too.
        let pair = try s.addBatch(["語 5123", "語 2351 5612"], to: s.otherStore)
        let expected = try s.expected("123")
        #expect(expected.first == pair[0] && !expected.contains(pair[1]))
        #expect(try s.board.search(query: "123").map(\.id) == expected)
        let rechecked = s.store.keptSearches.answered
        #expect(try s.board.search(query: "123").map(\.id) == expected)
        #expect(s.store.keptSearches.answered == rechecked + 1)
    }

    @Test func theNewestSegmentsKeptAnswerAPageThatFillsAboveTheOthersAndOnlyThen() throws {
        let s = try Fixture()
        // Two segments, a word in one poster of eight in each (50 a segment).
        try s.addBatch((0..<400).map { "\($0 % 8 == 7 ? "猫" : "犬") \($0)" })
        try s.addBatch((0..<400).map { "\($0 % 8 == 7 ? "猫" : "犬") \(1000 + $0)" })
        #expect(try s.board.search(query: "猫").map(\.id) == (try s.expected("猫")))
        #expect(try s.board.search(query: "猫", limit: 100).map(\.id) == (try s.expected("猫", limit: 100)))
        let segments = try #require(s.store.searchBlocks.kept?.list)
        #expect(segments.count == 2)
        // The older segment's blocks dropped (as a full cache drops them).
        s.store.searchBlocks.dropBlocks(of: segments.min { $0.top < $1.top }!)
        let answered = s.store.keptSearches.answered
        // A page within the newer segment: from what is kept, in one statement.
        #expect(try s.board.search(query: "猫", limit: 30).map(\.id) == (try s.expected("猫", limit: 30)))
        #expect(s.store.keptSearches.answered == answered + 1)
        // A page reaching into the older one: done in a read, whole.
        #expect(try s.board.search(query: "猫", limit: 80).map(\.id) == (try s.expected("猫", limit: 80)))
        #expect(s.store.keptSearches.answered == answered + 1)
        // That read kept the older segment's blocks again.
        #expect(try s.board.search(query: "猫 1", limit: 80).map(\.id) == (try s.expected("猫 1", limit: 80)))
        #expect(s.store.keptSearches.answered == answered + 2)
    }

    @Test func aMergeUnderWayIsNotAnsweredFromTheKeptList() throws {
        let s = try Fixture()
        let marking = try Connection(ConnectionTarget(s.url))
        try marking.execute("BEGIN")
        try marking.query("SELECT pg_advisory_xact_lock_shared(\(PostgresSchema.lockSpace), \(PostgresSchema.searchMergeLock))")
        for batch in 0..<8 { try s.addBatch((0..<100).map { "語 \(batch * 100 + $0) \($0 % 9 == 0 ? "猫" : "")" }) }
        try marking.execute("COMMIT")
        #expect(try s.board.search(query: "猫").map(\.id) == (try s.expected("猫")))
        #expect(try s.board.search(query: "猫").map(\.id) == (try s.expected("猫")))
        // A step of the merge by the other store: the kept list no longer matches.
        try s.otherStore.write { writing in try (writing as? PostgresSession)?.mergeSearch(budget: 3_000) }
        let outdated = s.store.keptSearches.outdated
        for query in ["猫", "猫 語", "語 5"] {
            #expect(try s.board.search(query: query, limit: 50).map(\.id) == (try s.expected(query, limit: 50)), "\(query)")
        }
        #expect(s.store.keptSearches.outdated == outdated + 1)
        // While the merge is under way nothing is answered from a kept list (none is kept).
        #expect(s.store.searchBlocks.kept == nil)
    }
}
