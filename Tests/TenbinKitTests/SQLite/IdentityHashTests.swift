import Testing

@testable import TenbinKit
@testable import TenbinSQLite

/// Schema 5's identity index: a hash of the contents finds a poster, the contents decide.
@Suite struct IdentityHashTests {
    private func images(_ board: Board) throws -> [StoredImage] {
        try ["01-cats-or-dogs/1-cat.jpg", "01-cats-or-dogs/2-dog.jpg"].map {
            try board.writeBlob(try board.prepare(.file(Fixtures.sample($0)))).stored
        }
    }

    @Test func theHashIsFNV1aOverUTF8AndNeverChanges() {
        // Stored on disk: a different function would make every store forget its posters.
        #expect(ContentsHash.of("") == Int64(bitPattern: 0xcbf2_9ce4_8422_2325))
        #expect(ContentsHash.of("a") == Int64(bitPattern: 0xaf63_dc4c_8601_ec8c))
        #expect(ContentsHash.of("foobar") == Int64(bitPattern: 0x8594_4171_f739_67e8))
        #expect(ContentsHash.of("どっち") != ContentsHash.of("どっち "))
        // The text's hash is the hash of its UTF-8 bytes, whichever way a caller gives them.
        for text in ["", "a", "どっち #猫", String(repeating: "é", count: 300)] {
            #expect(FNV1a.hash(text) == FNV1a.hash(Array(text.utf8)), "\(text)")
            #expect(FNV1a.hash(text) == FNV1a.hash(text.utf8), "\(text)")
        }
    }

    @Test func postersWhoseHashesCollideAreStillToldApartByTheirContents() throws {
        let store = try TemporaryStore()
        let board = try store.board()
        let images = try images(board)
        let first = NewPoster(contents: "きのこ", hashtags: [], images: images)
        let second = NewPoster(contents: "たけのこ", hashtags: [], images: images)
        #expect(try board.commitImport([first, second], images: []) == [.inserted(1), .inserted(2)])
        // Give the second row the first one's hash, as a collision would: the index finds both.
        let database = try Database(path: "\(store.path)/tenbin.sqlite", mode: .readWrite)
        try database.execute("UPDATE poster SET contents_hash = \(ContentsHash.of("きのこ")) WHERE id = 2")
        let session = SQLiteSession(database)
        #expect(try session.posterIDs(image1: images[0].digest, image2: images[1].digest, contents: "きのこ") == [1])
        #expect(try board.matchingPoster(first) == 1)
    }

    @Test func anEditedPosterIsRecognisedByItsNewContentsOnly() throws {
        let store = try TemporaryStore()
        let board = try store.board()
        let images = try images(board)
        #expect(try board.commitImport([NewPoster(contents: "before", hashtags: [], images: images)], images: []) == [.inserted(1)])
        _ = try board.edit(id: 1, contents: "after")
        #expect(try board.matchingPoster(NewPoster(contents: "after", hashtags: [], images: images)) == 1)
        #expect(try board.matchingPoster(NewPoster(contents: "before", hashtags: [], images: images)) == nil)
        #expect(try board.commitImport([NewPoster(contents: "after", hashtags: [], images: images)], images: []) == [.existing(1)])
    }

    @Test func aSchema4StoreGetsEveryHashOnUpgradeAndRecognisesItsPosters() throws {
        let store = try TemporaryStore()
        let images: [StoredImage]
        do {
            let board = try store.board()
            images = try self.images(board)
            let posters = ["一", "二つ目", "third"].map { NewPoster(contents: $0, hashtags: [], images: images) }
            #expect(try board.commitImport(posters, images: []) == [.inserted(1), .inserted(2), .inserted(3)])
        }
        // Back to schema 4 as it was released: no hash column, the contents in the index, one
        // index for popular order, search's index in FTS5 (empty: migration 6 refills it).
        do {
            let db = try Database(path: "\(store.path)/tenbin.sqlite", mode: .readWrite)
            try db.execute(
                NewerSchemas.undo + """
                    DROP INDEX poster_voted;
                    DROP INDEX poster_unvoted;
                    CREATE INDEX poster_popular ON poster(good1 + good2 DESC, id DESC);
                    DROP INDEX poster_identity;
                    ALTER TABLE poster DROP COLUMN contents_hash;
                    CREATE INDEX poster_identity ON poster(image1, image2, contents);
                    DROP TABLE search_posting;
                    DROP TABLE search_segment;
                    DROP TABLE search_stale;
                    DROP TABLE search_merge;
                    CREATE VIRTUAL TABLE search_gram USING fts5(grams, tokenize = 'ascii', detail = 'none', content = '');
                    PRAGMA user_version = 4;
                    """)
        }
        let board = try store.board(create: false)
        let db = try Database(path: "\(store.path)/tenbin.sqlite", mode: .readWrite)
        #expect(try Migrations.version(of: db) == Migrations.steps.count)
        let hashes = try db.statement("SELECT contents, contents_hash FROM poster ORDER BY id").map { ($0.text(0), $0.int64(1)) }
        #expect(hashes.map(\.1) == hashes.map { ContentsHash.of($0.0) })
        let again = ["third", "一", "new"].map { NewPoster(contents: $0, hashtags: [], images: images) }
        #expect(try board.commitImport(again, images: []) == [.existing(3), .existing(1), .inserted(4)])
        #expect(try board.store.integrityProblems() == [])
    }
}
