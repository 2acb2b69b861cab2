import Testing

@testable import TenbinKit
@testable import TenbinPostgres

/// Schema step 15's posting lists on PostgreSQL (PostgresSession+SearchIndex.swift): a segment
/// per write, merges by level, stale marks, `top`, merges under the lock while two stores
/// write, and check naming damage.
@Suite(.enabled(if: TestPostgres.isAvailable), .timeLimit(.minutes(10)))
struct PostgresSearchIndexTests {
    final class Fixture {
        let folder: TemporaryStore
        let url: String
        let store: PostgresStore
        let board: Board

        init(url: String? = nil) throws {
            folder = try TemporaryStore()
            self.url = try url ?? TestPostgres.freshDatabase()
            store = try PostgresStore(url: self.url, poolSize: 2)
            board = Board(folder.configuration(), store: store, blobs: BlobStore(storeFolder: folder.path))
        }

        /// How many rows `sql` gives each value of its one (bigint) column.
        func tally(_ sql: PostgresQuery) throws -> [Int64: Int] {
            try store.pool.withConnection { connection in
                let rows = try connection.query(sql)
                var counts: [Int64: Int] = [:]
                for row in 0..<rows.count { counts[try rows.int64(row, 0), default: 0] += 1 }
                return counts
            }
        }

        /// The levels and their segment counts.
        func levels() throws -> [Int64: Int] { try tally("SELECT level::bigint FROM search_segment") }

        /// Posters inserted as an import's batch (one transaction, one segment).
        @discardableResult
        func addBatch(_ texts: [String]) throws -> [Int64] {
            try Self.addBatch(texts, to: store)
        }

        @discardableResult
        static func addBatch(_ texts: [String], to store: PostgresStore) throws -> [Int64] {
            try store.write { writing in
                for image in Board.standInImages { try writing.insertBlob(image, source: nil, encodingKey: "test") }
                return try writing.insertPosters(
                    texts.map { NewPoster(contents: $0, hashtags: [], images: Board.standInImages) },
                    createdAt: Timestamp(secondsSince1970: 0),
                    search: texts.map { SearchRecord(contents: $0, hashtags: []) })
            }
        }

        func candidates(_ query: String) throws -> Set<Int64> {
            Set(try store.read { try $0.searchCandidateIDs(SearchGrams.terms(for: SearchQuery(query)), limit: 1000) })
        }
    }

    @Test func eachWriteIsASegmentAndEightOfALevelMergeIntoOneHoldingTheirTop() throws {
        let s = try Fixture()
        // A batch of 20 is one segment of level 1 (8–63 posters), its top the batch's highest id.
        let batch = try s.addBatch((0..<20).map { "一括 \($0)" })
        #expect(try s.levels() == [1: 1])
        #expect(try s.tally("SELECT top FROM search_segment") == [batch.max()!: 1])
        // Single posts are level 0; the eighth merges the eight into one of level 1.
        var singles: [Int64] = []
        for index in 0..<7 { singles.append(try s.board.quickPost("単独 \(index)").id) }
        #expect(try s.levels() == [0: 7, 1: 1])
        singles.append(try s.board.quickPost("単独 7").id)
        #expect(try s.levels() == [1: 2])
        #expect(try s.tally("SELECT top FROM search_segment") == [batch.max()!: 1, singles.max()!: 1])
        for index in 8..<48 { try s.board.quickPost("単独 \(index)") }
        #expect(try s.levels() == [1: 7])
        for index in 48..<56 { try s.board.quickPost("単独 \(index)") }
        #expect(try s.levels() == [2: 1])
        #expect(try s.tally("SELECT count(*) FROM search_merge") == [0: 1])
        #expect(try s.board.search(query: "単独", limit: 1000).count == 56)
        #expect(try s.board.search(query: "一括", limit: 1000).count == 20)
        #expect(try s.store.integrityProblems() == [])
    }

    @Test func editedAndDeletedPostersLeaveStaleEntriesThatMergesDrop() throws {
        let s = try Fixture()
        let edited = try s.board.quickPost("りんごの季節").id
        let deleted = try s.board.quickPost("りんご飴").id
        let kept = try s.board.quickPost("りんご畑").id
        _ = try s.board.edit(id: edited, contents: "みかんの季節", hashtags: [])
        try s.board.delete(id: deleted)
        // Until a merge, the index still names them; the recheck and the key table drop them.
        #expect(try s.candidates("りんご") == [edited, deleted, kept])
        #expect(try s.board.search(query: "りんご").map(\.id) == [kept])
        #expect(try s.board.search(query: "みかん").map(\.id) == [edited])
        #expect(try s.tally("SELECT poster_id FROM search_stale") == [edited: 1, deleted: 1])
        // 64 segments of one poster merge into one, which holds no stale entry.
        for index in 0..<60 { try s.board.quickPost("埋め草 \(index)") }
        #expect(try s.levels() == [2: 1])
        #expect(try s.candidates("りんご") == [kept])
        #expect(try s.board.search(query: "みかん").map(\.id) == [edited])
        #expect(try s.tally("SELECT poster_id FROM search_stale").isEmpty)
        #expect(try s.store.integrityProblems() == [])
    }

    @Test func wordsTheIndexAnswersExactlyLeaveOutEditedAndDeletedPostersStillInTheIndex() throws {
        let s = try Fixture()
        // 300 posters (more than the walk of the newest keys reads), every third with 猫, a
        // batch of them in one segment; then edits and deletes among the older ones.
        let ids = try s.addBatch((0..<300).map { $0 % 3 == 0 ? "猫 \($0)" : "犬 \($0)" })
        let edited = [ids[0], ids[3], ids[30]]
        let deleted = [ids[6], ids[33]]
        for id in edited { _ = try s.board.edit(id: id, contents: "鳥", hashtags: []) }
        for id in deleted { try s.board.delete(id: id) }
        _ = try s.board.edit(id: ids[1], contents: "猫になった", hashtags: [])
        // The index still names them: their marks make the search read their keys.
        #expect(try s.candidates("猫").isSuperset(of: edited + deleted))
        #expect(try s.tally("SELECT poster_id FROM search_stale").count == 6)
        let all = try s.board.scanSearchIDs(query: "猫")
        #expect(all.count == 100 - edited.count - deleted.count + 1)
        for (limit, offset) in [(20, 0), (1000, 0), (7, 80), (5, 93)] {
            let page = try s.store.readSearchPosters(SearchQuery("猫"), after: nil, offset: offset, limit: limit)
            #expect(page?.map(\.id) == Array(all.dropFirst(offset).prefix(limit)), "\(limit) after \(offset)")
        }
        #expect(try s.board.search(query: "猫", limit: 1000).map(\.id) == all)
        let after = FeedPosition(id: all[50])
        let below = try s.store.readSearchPosters(SearchQuery("猫"), after: after, offset: 0, limit: 30)
        #expect(below?.map(\.id) == Array(all.dropFirst(51).prefix(30)))
        #expect(try s.board.search(query: "鳥", limit: 1000).map(\.id) == edited.reversed())
    }

    @Test func noMergeRunsWhileATransactionMarksEntriesStale() throws {
        let s = try Fixture()
        for index in 0..<7 { try s.board.quickPost("待つ \(index)") }
        // Another transaction holds the merge lock shared, as one marking entries stale does
        // until it ends: the eighth post, which would merge the eight, leaves them.
        let marking = try Connection(ConnectionTarget(s.url))
        try marking.execute("BEGIN")
        try marking.query("SELECT pg_advisory_xact_lock_shared(\(PostgresSchema.lockSpace), \(PostgresSchema.searchMergeLock))")
        try s.board.quickPost("待つ 7")
        #expect(try s.levels() == [0: 8])
        try marking.execute("COMMIT")
        // The next write merges them (and its own segment waits for the next level's turn).
        try s.board.quickPost("待つ 8")
        #expect(try s.levels() == [0: 1, 1: 1])
        #expect(try s.board.search(query: "待つ", limit: 100).count == 9)
    }

    @Test func twoStoresWritingAtOnceMergeEachSegmentOnceAndAnswerAsTheScan() async throws {
        let url = try TestPostgres.freshDatabase()
        let first = try Fixture(url: url)
        let second = try Fixture(url: url)
        try first.board.quickPost("始まり")
        // Two writers at once, posts, edits and batches: each write tries the merge lock, and
        // the one holding it merges while the other writes on.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, (board, store)) in [(first.board, first.store), (second.board, second.store)].enumerated() {
                group.addTask {
                    for round in 0..<40 {
                        let poster = try board.quickPost("並行 \(index) \(round) ねこ")
                        if round % 5 == 0 { _ = try board.edit(id: poster.id, contents: "並行 \(index) \(round) いぬ", hashtags: []) }
                        if round % 10 == 3 { try Fixture.addBatch((0..<30).map { "束 \(index) \(round) \($0)" }, to: store) }
                    }
                }
            }
            try await group.waitForAll()
        }
        for query in ["並行", "ねこ", "いぬ", "束", "並行 1", "束 0 13", "始まり"] {
            let all = try first.board.scanSearchIDs(query: query)
            #expect(try first.board.search(query: query, limit: 1000).map(\.id) == all, "\(query)")
            #expect(try second.board.search(query: query, limit: 1000).map(\.id) == all, "\(query)")
        }
        // Every poster is in some segment exactly once per piece (no merge ran twice).
        let repeated = try first.tally(
            "SELECT segment FROM search_posting GROUP BY segment, piece HAVING count(*) > 1")
        #expect(repeated.isEmpty)
        #expect(try first.store.integrityProblems() == [])
    }

    @Test func checkNamesDamageAndRepairRebuildsTheIndex() throws {
        let s = try Fixture()
        try s.addBatch((0..<10).map { "壊れる \($0)" })
        #expect(try s.store.integrityProblems() == [])
        try s.store.pool.withConnection { connection in
            try connection.execute(
                """
                UPDATE search_posting SET postings = '\\x0005ff' WHERE (segment, piece) = (SELECT segment, piece FROM search_posting LIMIT 1);
                INSERT INTO search_posting (segment, piece, postings) VALUES (999, 1, '\\x000101');
                INSERT INTO search_merge (source, target) VALUES (998, 997)
                """)
        }
        let problems = try s.store.integrityProblems()
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.contains { $0.contains("the search index is damaged (2 entries") }, "\(problems)")
        #expect(problems.contains { $0.contains("a merge names segments that do not exist: 997, 998") }, "\(problems)")
        // A query over the damage answers what it can read instead of failing.
        #expect(try s.board.search(query: "壊れる").count <= 10)
        #expect(try s.board.check(repairingSearch: true).problems.filter { !$0.hasPrefix("blob ") }.isEmpty)
        #expect(try s.board.search(query: "壊れる", limit: 100).count == 10)
        #expect(try s.levels() == [1: 1])
    }

    @Test func checkNamesAPosterAboveItsSegmentsTopAndRepairMendsIt() throws {
        let s = try Fixture()
        let ids = try s.addBatch((0..<10).map { "高い \($0)" })
        // A top below the segment's posters: a search reading segments by top would miss them.
        try s.store.pool.withConnection { connection in
            try connection.execute("UPDATE search_segment SET top = \(ids.min()!)")
        }
        let problems = try s.store.integrityProblems()
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.contains("above its segment's top \(ids.min()!)") == true, "\(problems)")
        #expect(try s.board.check(repairingSearch: true).problems.filter { !$0.hasPrefix("blob ") }.isEmpty)
        #expect(try s.store.integrityProblems() == [])
        #expect(try s.board.search(query: "高い", limit: 100).map(\.id) == ids.reversed())
    }

    @Test func aMergeOverADamagedBlockFailsItsWriteWholeAndSaysSo() throws {
        let s = try Fixture()
        for index in 0..<7 { try s.board.quickPost("壊れた \(index)") }
        try s.store.pool.withConnection { connection in
            try connection.execute("UPDATE search_posting SET postings = '\\x0005ff' WHERE segment = (SELECT min(id) FROM search_segment)")
        }
        // The eighth post merges the seven with its own segment, and cannot read the damaged one.
        #expect {
            try s.board.quickPost("八つ目")
        } throws: { error in
            guard let error = error as? StoreError, case .damaged = error.reason else { return false }
            return error.description.contains("cannot be read; `tenbin check --repair` rebuilds the index")
        }
        #expect(try s.board.count() == 7)
        #expect(try s.levels() == [0: 7])
    }
}
