import Testing

@testable import TenbinKit
@testable import TenbinSQLite

/// Schema 15: a store made before search by reading gets readings in steps, a few hundred
/// posters a write (SQLiteStore+Readings.swift), and `check --repair` gives them all at once.
@Suite struct ReadingMigrationTests {
    typealias SearchStore = SearchIndexTests.SearchStore

    /// A store of `count` posters "猫 N" as schema 14 left it: keys as written, their index,
    /// no `search_reading` (nor any later schema's tables).
    static func schemaThirteenStore(_ count: Int) throws -> SearchStore {
        let s = try SearchStore()
        _ = try SearchSegmentTests.addBatch(s, (1...count).map { "猫 \($0)" })
        let writer = try #require(try s.store.open()).writer
        try writer.withLock { db in
            try db.execute(
                NewerSchemas.undo(after: 14) + """
                    DELETE FROM search_posting; DELETE FROM search_segment; DELETE FROM search_merge; DELETE FROM search_stale;
                    UPDATE search_key SET key = (SELECT contents FROM poster WHERE id = poster_id);
                    PRAGMA user_version = 14;
                    """)
            try SQLiteSession.indexAllKeys(db, slice: 20_000)
        }
        return s
    }

    static func waiting(_ s: SearchStore) throws -> [Int64] {
        let writer = try #require(try s.store.open()).writer
        return try writer.withLock { db in try db.statement("SELECT below FROM search_reading").map { $0.int64(0) } }
    }

    @Test func eachWriteGivesTheNextPostersTheirReadingsNewestFirst() throws {
        try #require(SearchReadings.unavailable == nil, "MeCab and mecab-ipadic-utf8 must be installed (make deps)")
        let old = try Self.schemaThirteenStore(1_100)
        let upgraded = try SQLiteStore(folder: old.folder.path, create: false)
        let board = Board(Board.Configuration(), store: upgraded, blobs: BlobStore(storeFolder: old.folder.path))
        // The upgrade itself gives no poster its readings: writes do.
        #expect(try board.search(query: "ねこ").isEmpty)
        #expect(try Self.waiting(old) == [1_101])
        // Keys as written are right keys: found as written, and check finds nothing wrong.
        #expect(try board.check().problems.filter { !$0.hasPrefix("blob ") }.isEmpty)
        #expect(try board.search(query: "猫 1100").map(\.id) == [1_100])
        let step = SQLiteSession.postersGivenReadingsPerWrite
        let first = try board.quickPost("犬", hashtags: [])
        #expect(try board.search(query: "ねこ", limit: 10_000).map(\.id) == Array((Int64(1_101 - step)...1_100).reversed()))
        #expect(try board.search(query: "いぬ").map(\.id) == [first.id])
        #expect(try Self.waiting(old) == [Int64(1_101 - step)])
        _ = try board.quickPost("犬", hashtags: [])
        _ = try board.quickPost("犬", hashtags: [])
        #expect(try Self.waiting(old).isEmpty)
        #expect(try board.search(query: "ねこ", limit: 10_000).count == 1_100)
        #expect(
            try board.search(query: "ねこ 7", order: .popular, limit: 10_000).count == (1...1_100).filter { String($0).contains("7") }.count)
        #expect(try upgraded.integrityProblems() == [])
    }

    @Test func repairGivesEveryPosterItsReadingsAtOnce() throws {
        try #require(SearchReadings.unavailable == nil, "MeCab and mecab-ipadic-utf8 must be installed (make deps)")
        let old = try Self.schemaThirteenStore(600)
        let upgraded = try SQLiteStore(folder: old.folder.path, create: false)
        let board = Board(Board.Configuration(), store: upgraded, blobs: BlobStore(storeFolder: old.folder.path))
        #expect(try board.rebuildSearch() == 600)
        #expect(try Self.waiting(old).isEmpty)
        #expect(try board.search(query: "ねこ", limit: 10_000).count == 600)
    }
}
