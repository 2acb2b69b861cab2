import Testing

@testable import TenbinKit
@testable import TenbinPostgres

/// Schema step 14: a PostgreSQL board made before search by reading gets readings in steps, a
/// few hundred posters a write (PostgresSession+Readings.swift), and `check --repair` gives
/// them all at once.
@Suite(.enabled(if: TestPostgres.isAvailable), .timeLimit(.minutes(10)))
struct PostgresReadingMigrationTests {
    /// A board of `count` posters "猫 N" as step 13 left it: keys as written (no readings),
    /// GIN's `grams`, and no `search_reading`; then opened again, so steps 14 to 16 run.
    static func upgradedBoard(_ count: Int) throws -> (board: Board, store: PostgresStore, folder: TemporaryStore) {
        let url = try TestPostgres.freshDatabase()
        let folder = try TemporaryStore()
        let old = try PostgresStore(url: url, poolSize: 1)
        let board = Board(folder.configuration(), store: old, blobs: BlobStore(storeFolder: folder.path))
        let contents = (1...count).map { "猫 \($0)" }
        try board.quickPost(contents.map { ($0, []) })
        try old.pool.withConnection { connection in
            try TestPostgres.undoPostingLists(on: connection)
            let tokens = contents.map { SearchGrams.pieces(forKey: $0).map(SearchGrams.token(ofPiece:)).joined(separator: " ") }
            try connection.query(
                """
                UPDATE search_key s SET key = u.k, grams = string_to_array(u.d, ' ')
                FROM unnest(\(Array(1...Int64(count)))::bigint[], \(contents)::text[], \(tokens)::text[]) AS u(i, k, d) WHERE s.poster_id = u.i
                """)
            try connection.execute(
                "UPDATE poster p SET walk_key = s.key FROM search_key s WHERE s.poster_id = p.id; DROP TABLE search_reading; DELETE FROM tenbin_schema WHERE version = 14"
            )
        }
        let store = try PostgresStore(url: url, poolSize: 2)
        return (Board(folder.configuration(), store: store, blobs: BlobStore(storeFolder: folder.path)), store, folder)
    }

    static func waiting(_ store: PostgresStore) throws -> [Int64] {
        try store.pool.withConnection { connection in
            let rows = try connection.query("SELECT below FROM search_reading")
            return try (0..<rows.count).map { row throws(RowDecodingError) in try rows.int64(row, 0) }
        }
    }

    @Test func eachWriteGivesTheNextPostersTheirReadingsNewestFirst() throws {
        try #require(SearchReadings.unavailable == nil, "MeCab and mecab-ipadic-utf8 must be installed (make deps)")
        let (board, store, _) = try Self.upgradedBoard(1_100)
        #expect(try store.schemaVersion() == PostgresSchema.latestVersion)
        #expect(try Self.waiting(store) == [1_101])
        #expect(try board.search(query: "ねこ").isEmpty)
        // Keys as written are right keys: found as written, and check finds nothing wrong.
        #expect(try board.check().problems.filter { !$0.hasPrefix("blob ") }.isEmpty)
        #expect(try board.search(query: "猫 1100").map(\.id) == [1_100])
        let step = PostgresSession.postersGivenReadingsPerWrite
        // A post takes a step: the newest posters below the mark.
        let first = try board.quickPost("犬", hashtags: [])
        #expect(try board.search(query: "ねこ", limit: 10_000).map(\.id) == Array((Int64(1_101 - step)...1_100).reversed()))
        #expect(try board.search(query: "いぬ").map(\.id) == [first.id])
        #expect(try Self.waiting(store) == [Int64(1_101 - step)])
        // So does an edit, and the last step deletes the mark.
        _ = try board.edit(id: 1_100, hashtags: ["たぐ"])
        #expect(try Self.waiting(store) == [Int64(1_101 - 2 * step)])
        _ = try board.quickPost("犬", hashtags: [])
        #expect(try Self.waiting(store).isEmpty)
        #expect(try board.search(query: "ねこ", limit: 10_000).count == 1_100)
        #expect(
            try board.search(query: "ねこ 7", order: .popular, limit: 10_000).count == (1...1_100).filter { String($0).contains("7") }.count)
        #expect(try store.integrityProblems() == [])
        #expect(try board.check().problems.filter { !$0.hasPrefix("blob ") }.isEmpty)
    }

    @Test func repairGivesEveryPosterItsReadingsAtOnce() throws {
        try #require(SearchReadings.unavailable == nil, "MeCab and mecab-ipadic-utf8 must be installed (make deps)")
        let (board, store, _) = try Self.upgradedBoard(600)
        #expect(try board.rebuildSearch() == 600)
        #expect(try Self.waiting(store).isEmpty)
        #expect(try board.search(query: "ねこ", limit: 10_000).count == 600)
    }
}
