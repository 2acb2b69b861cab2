import Testing

@testable import TenbinKit
@testable import TenbinPostgres

/// The PostgreSQL schema's versions: each earlier one upgrades, migrators take turns, and a
/// newer one is refused.
@Suite(.enabled(if: TestPostgres.isAvailable), .timeLimit(.minutes(10)))
struct PostgresMigrationTests {
    @Test func aDatabaseAtEachEarlierVersionUpgradesAndIndexesItsPosters() throws {
        for version in 1..<PostgresSchema.latestVersion {
            let url = try TestPostgres.freshDatabase()
            let old = try PostgresStore(url: url, poolSize: 1, migrate: false)
            #expect(try old.migrate(to: version) == Array(1...version))
            // A poster written as that version's tenbin wrote it (contents "AB東").
            let digest = String(repeating: "a", count: 64)
            try old.pool.withConnection { connection in
                try connection.execute(
                    """
                    INSERT INTO blob VALUES ('\(digest)', 'jpeg', 1, 1, 1, NULL);
                    INSERT INTO poster (contents, created_at, image1, image2) VALUES ('\\x4142e69db1'::bytea, 1, '\(digest)', '\(digest)');
                    INSERT INTO hashtag VALUES (1, 0, 'Ｔag');
                    """)
                // From version 2 on, tenbin wrote the poster's search key with it.
                if version >= 2 { try PostgresStore.indexAllPosters(on: connection) }
            }
            let upgraded = try PostgresStore(url: url, poolSize: 2)
            #expect(try upgraded.schemaVersion() == PostgresSchema.latestVersion)
            #expect(try upgraded.migrate().isEmpty)
            let folder = try TemporaryStore()
            let board = Board(folder.configuration(), store: upgraded, blobs: BlobStore(root: folder.path + "/blobs"))
            #expect(try board.search(query: "ab東").map(\.id) == [1])
            #expect(try board.search(query: "tag").map(\.id) == [1])
            #expect(try upgraded.integrityProblems().isEmpty)
        }
    }

    @Test func migratorsRunningAtOnceApplyEachStepOnce() async throws {
        let url = try TestPostgres.freshDatabase()
        let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<4 {
                group.addTask { try PostgresStore(url: url, poolSize: 1, migrate: false).migrate() }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(applied.sorted() == Array(1...PostgresSchema.latestVersion))
    }

    @Test func aNewerSchemaIsRefusedNamingBothVersions() throws {
        let url = try TestPostgres.freshDatabase()
        let store = try PostgresStore(url: url, poolSize: 1)
        try store.pool.withConnection { try $0.execute("INSERT INTO tenbin_schema (version) VALUES (99)") }
        let error = try #require(throws: StoreError.self) { try PostgresStore(url: url, poolSize: 1) }
        #expect(error.reason == .newerSchema(99, known: PostgresSchema.latestVersion))
    }

    @Test func anUnreachableServerIsUnavailableWithoutThePassword() throws {
        let error = try #require(throws: (any Error).self) {
            try PostgresStore(url: "postgresql://someone:hunter2@127.0.0.1:1/none?connect_timeout=2", poolSize: 1)
        }
        #expect(ErrorKind.of(error) == .unavailable)
        #expect(!"\(error)".contains("hunter2"))
    }
}
