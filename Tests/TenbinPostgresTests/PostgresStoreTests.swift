import Testing
import TenbinKit

@testable import TenbinPostgres

/// The backend's own operations, below the store seam (the contract suite tests the seam).
@Suite(.enabled(if: TestPostgres.isAvailable), .timeLimit(.minutes(2)))
struct PostgresStoreTests {
    static func image(_ n: Int) -> StoredImage {
        let hex = String(repeating: String(n % 10), count: 64)
        return StoredImage(digest: Digest(hex: hex)!, format: .jpeg, width: 10 + n, height: 20, bytes: 100 + n)
    }

    static func draft(_ text: String, tags: [String] = [], images: (Int, Int) = (1, 2)) -> NewPoster {
        NewPoster(contents: text, hashtags: tags, images: [image(images.0), image(images.1)])
    }

    @Test func insertedPostersReadBackWholeInBothOrders() throws {
        let store = try PostgresStore(url: TestPostgres.freshDatabase(), poolSize: 2)
        let made = try store.insert(
            [Self.draft("a\0b", tags: ["x", "東京 タワー", "q\"uote"]), Self.draft("", images: (3, 3))], createdAt: Timestamp(secondsSince1970: 7),
            encodingKey: "k"
        ) {}
        #expect(made.map(\.inserted) == [true, true])
        #expect(made[1].id == made[0].id + 1)
        let first = try #require(try store.poster(id: made[0].id))
        #expect(first.contents == "a\0b")
        #expect(first.hashtags == ["x", "東京 タワー", "q\"uote"])
        #expect(first.images == [Self.image(1), Self.image(2)])
        #expect(first.createdAt == Timestamp(secondsSince1970: 7))
        #expect(try store.posters(order: .new, limit: 10, offset: 0).map(\.id) == [made[1].id, made[0].id])
        _ = try store.vote(id: made[0].id, side: .second, times: 3)
        #expect(try store.posters(order: .popular, limit: 1, offset: 0).map(\.id) == [made[0].id])
        #expect(try store.posters(order: .popular, limit: 5, after: (3, made[0].id)).map(\.id) == [made[1].id])
        #expect(try store.count() == 2)
        #expect(try store.blobRows().count == 3)
    }

    @Test func batchedVoteDeltasAddUpAndSkipMissingPosters() throws {
        let store = try PostgresStore(url: TestPostgres.freshDatabase(), poolSize: 2)
        let ids = try store.insert([Self.draft("a"), Self.draft("b")], createdAt: Timestamp(secondsSince1970: 1), encodingKey: "k") {}
            .map(\.id)
        let applied = try store.applyVotes([(ids[0], 2, 1), (ids[1], 0, 5), (ids[0], 1, 0), (999, 1, 1)])
        #expect(applied == Set(ids))
        #expect(try store.poster(id: ids[0]).map { [$0.good1, $0.good2] } == [3, 1])
        #expect(try store.poster(id: ids[1]).map { [$0.good1, $0.good2] } == [0, 5])
    }

    @Test func deleteReportsOnlyTheBlobsNoOtherPosterUses() throws {
        let store = try PostgresStore(url: TestPostgres.freshDatabase(), poolSize: 2)
        let ids = try store.insert(
            [Self.draft("a", images: (1, 2)), Self.draft("b", images: (2, 3))], createdAt: Timestamp(secondsSince1970: 1), encodingKey: "k"
        ) {}.map(\.id)
        let deleted = try #require(try store.delete(id: ids[0]))
        #expect(deleted.orphaned == [Self.image(1).digest])
        #expect(try store.delete(id: ids[0]) == nil)
        #expect(try store.withBlobLocks([Self.image(2).digest, Self.image(1).digest]) { $0 } == [Self.image(2).digest])
    }

    @Test func importSkipsPostersAlreadyStoredOrEarlierInTheBatch() throws {
        let store = try PostgresStore(url: TestPostgres.freshDatabase(), poolSize: 2)
        let first = try store.insert([Self.draft("same", tags: ["t"])], createdAt: Timestamp(secondsSince1970: 1), encodingKey: "k") {}
        let outcomes = try store.insert(
            [Self.draft("same", tags: ["t"]), Self.draft("new"), Self.draft("new"), Self.draft("same", tags: ["other"])],
            createdAt: Timestamp(secondsSince1970: 2), encodingKey: "k", deduplicate: true
        ) {}
        #expect(outcomes[0].id == first[0].id && !outcomes[0].inserted)
        #expect(outcomes[1].inserted && outcomes[2].id == outcomes[1].id && !outcomes[2].inserted)
        #expect(outcomes[3].inserted)
        #expect(try store.count() == 3)
    }

    @Test func aDatabaseAtEachEarlierVersionUpgradesAndIndexesItsPosters() throws {
        for version in 1..<PostgresSchema.latestVersion {
            let url = try TestPostgres.freshDatabase()
            let old = try PostgresStore(url: url, poolSize: 1, migrate: false)
            #expect(try old.migrate(to: version) == Array(1...version))
            // A poster written as that version's tenbin wrote it.
            try old.pool.withConnection { connection in
                try connection.execute(
                    """
                    INSERT INTO blob VALUES ('\(Self.image(1).digest.hex)', 'jpeg', 1, 1, 1, NULL);
                    INSERT INTO poster (contents, created_at, image1, image2) VALUES ('\\x4142e69db1'::bytea, 1, '\(Self.image(1).digest.hex)', '\(Self.image(1).digest.hex)');
                    INSERT INTO hashtag VALUES (1, 0, 'Ｔag');
                    """)
            }
            let upgraded = try PostgresStore(url: url, poolSize: 1)
            #expect(try upgraded.schemaVersion() == PostgresSchema.latestVersion)
            #expect(try upgraded.searchKey(id: 1) == "ab東\ntag")
            #expect(try upgraded.migrate().isEmpty)
        }
    }

    @Test func twoMigratorsAtOnceBothSucceedOnce() async throws {
        let url = try TestPostgres.freshDatabase()
        let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<4 {
                group.addTask { try PostgresStore(url: url, poolSize: 1, migrate: false).migrate() }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(applied.sorted() == Array(1...PostgresSchema.latestVersion))
    }

    @Test func aNewerSchemaIsRefused() throws {
        let url = try TestPostgres.freshDatabase()
        let store = try PostgresStore(url: url, poolSize: 1)
        try store.pool.withConnection { try $0.execute("INSERT INTO tenbin_schema (version) VALUES (99)") }
        let error = try #require(throws: PostgresError.self) { try PostgresStore(url: url, poolSize: 1) }
        #expect(error.description.contains("newer than this tenbin knows"))
    }

    @Test func searchCandidatesHoldEveryPiece() throws {
        let store = try PostgresStore(url: TestPostgres.freshDatabase(), poolSize: 2)
        let ids = try store.insert(
            [Self.draft("東京タワー"), Self.draft("京都", tags: ["ねこ"]), Self.draft("ab c")], createdAt: Timestamp(secondsSince1970: 1),
            encodingKey: "k"
        ) {}.map(\.id)
        #expect(try store.searchCandidates(grams: SearchIndexGrams.query(["京"]), order: .new, after: nil, limit: 10).map(\.id) == [ids[1], ids[0]])
        #expect(try store.searchCandidates(grams: SearchIndexGrams.query(["ねこ"]), order: .new, after: nil, limit: 10).map(\.id) == [ids[1]])
        let page = try store.searchCandidates(grams: SearchIndexGrams.query(["京"]), order: .new, after: nil, limit: 1)
        #expect(try store.searchCandidates(grams: SearchIndexGrams.query(["京"]), order: .new, after: page[0], limit: 5).map(\.id) == [ids[0]])
    }
}
