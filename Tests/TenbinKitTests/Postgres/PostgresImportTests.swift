import Testing

@testable import TenbinKit
@testable import TenbinPostgres

/// An import batch on PostgreSQL: a few statements whatever its size (the contract suite
/// checks what it answers), and an identity lookup that cannot be planned badly.
@Suite(.enabled(if: TestPostgres.isAvailable), .timeLimit(.minutes(10)))
struct PostgresImportTests {
    @Test func theIdentityLookupUsesTheIdentityIndexEvenWithStatisticsOfAnEmptyBoard() throws {
        let folder = try TemporaryStore()
        let store = try PostgresStore(url: try TestPostgres.freshDatabase(), poolSize: 1)
        let board = Board(folder.configuration(), store: store, blobs: BlobStore(storeFolder: folder.path))
        _ = try board.quickPost("first")
        // Statistics of a board of one poster, then a board filling up (as an import into a
        // new board does, faster than autovacuum analyzes it): every poster shares its images.
        try store.pool.withConnection { try $0.execute("ANALYZE poster") }
        let images = Board.standInImages
        let batch = (0..<3_000).map { NewPoster(contents: "poster \($0)", hashtags: ["t"], images: images) }
        let ids = try board.store.write { writing in
            try writing.insertPosters(
                batch, createdAt: Timestamp(secondsSince1970: 1),
                search: batch.map { SearchRecord(contents: $0.contents, hashtags: $0.hashtags) })
        }
        #expect(try board.store.read { try $0.posterIDs(matching: [batch[7], batch[2_999]]) } == [[ids[7]], [ids[2_999]]])
        let plan = try store.pool.withConnection { connection in
            let lookup = PostgresSession.identityLookup([NewPoster(contents: "poster 7", hashtags: [], images: images)])
            let rows = try connection.query("EXPLAIN \(lookup)")
            return (0..<rows.count).map { rows.text($0, 0) }.joined(separator: "\n")
        }
        #expect(plan.contains("poster_identity"), "\(plan)")
        #expect(!plan.contains("poster_image2"), "\(plan)")
    }
}
