import Testing

@testable import TenbinKit
@testable import TenbinPostgres

/// The search blocks a PostgreSQL store keeps for its later searches (SearchBlockCache.swift):
/// which blocks a range of pieces needs, the bound on what is kept, and answers that stay the
/// scan's while merges move blocks between segments and when segment ids come to name other
/// segments.
@Suite(.enabled(if: TestPostgres.isAvailable), .timeLimit(.minutes(10)))
struct PostgresSearchBlockCacheTests {
    @Test func aRangeOfPiecesNeedsTheBlockStartingAtOrBelowItAndThoseStartingWithinIt() {
        let directory: [Int64] = [10, 20, 30]
        func blocks(_ range: ClosedRange<Int64>) -> [Int64] { Array(SearchBlockCache.blocks(in: directory, covering: range)) }
        #expect(blocks(5...5) == [])
        #expect(blocks(10...10) == [10])
        #expect(blocks(15...15) == [10])
        #expect(blocks(29...29) == [20])
        #expect(blocks(35...35) == [30])
        #expect(blocks(15...25) == [10, 20])
        #expect(blocks(5...25) == [10, 20])
        #expect(blocks(20...30) == [20, 30])
        #expect(blocks(5...9) == [])
        #expect(SearchBlockCache.blocks(in: [], covering: 1...9).isEmpty)
    }

    @Test func blocksKeptStayWithinTheBudgetAndTheLastUsedStay() {
        let cache = SearchBlockCache(budget: 100)
        let segment = SearchBlockCache.Segment(id: 1, top: 10, posters: 10)
        func key(_ piece: Int64) -> SearchBlockCache.BlockKey { .init(segment: segment, piece: piece) }
        for piece in 0..<10 {
            cache.add(Array(repeating: UInt8(piece), count: 30), key(Int64(piece)))
            #expect(cache.bytes <= 100)
            // Read again after every add: the block used last is always kept.
            #expect(cache.block(key(Int64(piece))) == Array(repeating: UInt8(piece), count: 30))
        }
        #expect(cache.block(key(0)) == nil)
        // A block larger than half the budget is not kept at all.
        cache.add(Array(repeating: 7, count: 60), key(99))
        #expect(cache.block(key(99)) == nil)
    }

    /// A board whose store kept the blocks of its first searches, and the texts' queries.
    final class Fixture {
        let folder: TemporaryStore
        let url: String
        let store: PostgresStore
        let board: Board
        let queries = ["猫", "12", "猫 12", "語3", "7 犬", "犬", "100", "犬 21"]

        init() throws {
            folder = try TemporaryStore()
            url = try TestPostgres.freshDatabase()
            store = try PostgresStore(url: url, poolSize: 2)
            board = Board(folder.configuration(), store: store, blobs: BlobStore(storeFolder: folder.path))
        }

        /// `count` batches of 150 posters, each its own segment, with ASCII digits (low pieces)
        /// and kanji (high ones), so a merge's steps move some of a word's lists and not others.
        func addBatches(_ count: Int) throws {
            for batch in 0..<count {
                try PostgresSearchIndexTests.Fixture.addBatch(
                    (0..<150).map { "\($0 % 3 == 0 ? "猫" : "犬") \(batch * 1000 + $0 * 7) 語\($0 % 10) \($0 % 4 == 0 ? "鳥" : "")" },
                    to: store)
            }
        }

        func expectScanAnswers(_ note: String) throws {
            for query in queries {
                let all = try board.scanSearchIDs(query: query)
                #expect(try board.search(query: query, limit: 2000).map(\.id) == all, "\(query): \(note)")
                #expect(try board.search(query: query, limit: 20).map(\.id) == Array(all.prefix(20)), "\(query): \(note)")
                guard all.count > 3 else { continue }
                // Below a cursor, through the core's candidates and the backend's own answer.
                let after = FeedPosition(id: all[2])
                let below = try store.read {
                    try Board.searchIDs(SearchQuery(query), order: .new, after: after, offset: 0, limit: 5, in: $0)
                }
                #expect(below == Array(all.dropFirst(3).prefix(5)), "\(query) below \(all[2]): \(note)")
                if SearchGrams.indexIsExact(for: SearchQuery(query)) {
                    let page = try store.readSearchPosters(SearchQuery(query), after: after, offset: 1, limit: 5)
                    #expect(page?.map(\.id) == Array(all.dropFirst(4).prefix(5)), "\(query) below \(all[2]), offset 1: \(note)")
                }
            }
        }

        func merging() throws -> Int {
            try store.pool.withConnection { try $0.query("SELECT count(*) FROM search_merge").int(0, 0) }
        }
    }

    @Test func searchesAnswerAsTheScanWhileAMergeMovesTheBlocksTheyKept() throws {
        let s = try Fixture()
        // Eight segments of a level, not merged yet: another transaction holds the merge lock
        // shared (as one marking entries stale does), so the writes leave the merge.
        let marking = try Connection(ConnectionTarget(s.url))
        try marking.execute("BEGIN")
        try marking.query("SELECT pg_advisory_xact_lock_shared(\(PostgresSchema.lockSpace), \(PostgresSchema.searchMergeLock))")
        try s.addBatches(8)
        try marking.execute("COMMIT")
        // Every segment's directory and blocks kept.
        try s.expectScanAnswers("before the merge")
        #expect(s.store.searchBlocks.bytes > 0)
        // The merge in small steps: its sources lose blocks and its target gains them.
        var steps = 0
        repeat {
            try s.store.write { writing in try (writing as? PostgresSession)?.mergeSearch(budget: 3_000) }
            steps += 1
            try s.expectScanAnswers("after \(steps) steps of the merge")
        } while try s.merging() > 0 && steps < 200
        #expect(steps > 2)
        #expect(try s.merging() == 0)
        try s.expectScanAnswers("after the merge")
    }

    @Test func aSegmentIdNamingAnotherSegmentAfterARebuildIsReadAgain() throws {
        let s = try Fixture()
        try s.addBatches(3)
        try s.expectScanAnswers("first")
        // The index rebuilt with its segment ids from 1 again, as a database restored under the
        // same URL may name other segments by the ids this store kept.
        try s.store.pool.withConnection { connection in
            try connection.execute(
                """
                DELETE FROM search_posting; DELETE FROM search_segment; DELETE FROM search_merge; DELETE FROM search_stale;
                ALTER TABLE search_segment ALTER COLUMN id RESTART WITH 1
                """)
            try PostgresSession.indexAllKeys(on: connection)
        }
        try s.addBatches(2)
        try s.expectScanAnswers("after the rebuild")
    }
}
