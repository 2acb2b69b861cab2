import Testing

@testable import TenbinKit
@testable import TenbinPostgres

/// The PostgreSQL schema's versions: each earlier one upgrades, migrators take turns, and a
/// newer one is refused.
@Suite(.enabled(if: TestPostgres.isAvailable), .timeLimit(.minutes(10)))
struct PostgresMigrationTests {
    /// A fresh database at today's schema, filled through a board by `fill`, then taken back to
    /// an older version by `undo` (SQL removing what later steps added), and closed: its URL, the
    /// folder of its blobs, and what `fill` returned.
    static func olderDatabase<Filled>(
        fill: (Board) throws -> Filled, undo: (Connection) throws -> Void
    ) throws -> (url: String, folder: TemporaryStore, filled: Filled) {
        let url = try TestPostgres.freshDatabase()
        let folder = try TemporaryStore()
        let store = try PostgresStore(url: url, poolSize: 1)
        defer { store.close() }
        let filled = try fill(Board(folder.configuration(), store: store, blobs: BlobStore(storeFolder: folder.path)))
        try store.pool.withConnection { try undo($0) }
        return (url, folder, filled)
    }

    @Test func aDatabaseAtEachEarlierVersionUpgradesAndIndexesItsPosters() throws {
        // Versions 1-5, with posters as those versions wrote them (from 6 on, a poster row
        // holds copies of its blob rows and its walk key: `anAltTextlessDatabaseUpgrades…`).
        for version in 1..<6 {
            let url = try TestPostgres.freshDatabase()
            let old = try PostgresStore(url: url, poolSize: 1, migrate: false)
            #expect(try old.migrate(to: version) == Array(1...version))
            // Posters written as that version's tenbin wrote them (contents "AB東"; hashtags in
            // their own table before version 3, in the poster row from then on).
            let digest = String(repeating: "a", count: 64)
            let tagged = [(1, ["Ｔag"]), (2, ["b", "a", "c"]), (3, [])]
            try old.pool.withConnection { connection in
                try connection.execute("INSERT INTO blob VALUES ('\(digest)', 'jpeg', 1, 1, 1, NULL)")
                for (id, tags) in tagged {
                    // From version 6 a poster row holds copies of its images' blob rows.
                    let images = version >= 6 ? (", " + PostgresStore.imageColumnNames, ", 'jpeg', 1, 1, 1, 'jpeg', 1, 1, 1") : ("", "")
                    try connection.execute(
                        "INSERT INTO poster (contents, created_at, image1, image2\(images.0)) VALUES ('\\x4142e69db1'::bytea, \(id), '\(digest)', '\(digest)'\(images.1))"
                    )
                    if version < 3 {
                        for (position, tag) in tags.enumerated() {
                            try connection.query("INSERT INTO hashtag VALUES (\(id), \(position), \(tag))")
                        }
                    } else {
                        try connection.query("UPDATE poster SET hashtags = \(tags)::text[] WHERE id = \(id)")
                    }
                    if version >= 2 {
                        let record = SearchRecord(contents: "AB東", hashtags: tags)
                        try connection.query("INSERT INTO search_key VALUES (\(id), \(record.key), \(record.tokens)::text[])")
                        if version >= 6 {
                            try connection.execute(
                                "UPDATE poster p SET walk_key = (SELECT \(PostgresStore.walkKeySQL("k.key").sql) FROM search_key k WHERE k.poster_id = p.id) WHERE p.id = \(id)"
                            )
                        }
                    }
                }
                // Votes cast before timelines (step 10) existed.
                try connection.execute("UPDATE poster SET good1 = 4, good2 = 1 WHERE id = 1")
            }
            let upgraded = try PostgresStore(url: url, poolSize: 2)
            #expect(try upgraded.schemaVersion() == PostgresSchema.latestVersion)
            #expect(try upgraded.migrate().isEmpty)
            let folder = try TemporaryStore()
            let board = Board(folder.configuration(), store: upgraded, blobs: BlobStore(storeFolder: folder.path))
            // Step 11: the voted poster's score seeded from its timeline, so it leads trending order
            // (without the seed, the unvoted ones would come first, newest first).
            #expect(try board.posters(order: .trending).map(\.id) == [1, 3, 2], "version \(version)")
            #expect(try board.posters().map(\.hashtags) == tagged.reversed().map(\.1), "version \(version)")
            #expect(try board.search(query: "ab東").map(\.id) == [3, 2, 1])
            #expect(try board.search(query: "tag").map(\.id) == [1])
            // Words of 1–2 characters: step 5's search function, on every upgraded database.
            #expect(try board.search(query: "東").map(\.id) == [3, 2, 1])
            #expect(try board.search(query: "ＢＥ ｔ").isEmpty && board.search(query: "b ｔ").map(\.id) == [1])
            // Popular order (step 6: votes and keys in the popular index, filled on upgrade).
            _ = try board.vote(id: 1, side: .second, times: 2)
            _ = try board.vote(id: 2, side: .first)
            #expect(try board.search(query: "東", order: .popular).map(\.id) == [1, 2, 3])
            #expect(try board.posters(order: .popular).map(\.id) == [1, 2, 3])
            // Step 7: the votes before it in one bucket, the ones after in their own.
            let timeline = try board.timeline(poster: 1, bucket: .minute)
            #expect(
                timeline.count == 2 && timeline.reduce(0) { $0 + $1.good1 } == 4 && timeline.reduce(0) { $0 + $1.good2 } == 3,
                "version \(version)")
            let unfilled = try upgraded.pool.withConnection { connection in
                try connection.query("SELECT count(*) FROM poster WHERE walk_key IS NULL OR votes <> good1 + good2").int(0, 0)
            }
            #expect(unfilled == 0, "version \(version)")
            #expect(try upgraded.integrityProblems().isEmpty)
            // Step 9: an empty blocklist, and no hash for a picture stored before (filled lazily).
            #expect(try board.blockedImages().isEmpty)
            #expect(try upgraded.read { try $0.perceptualHashes([try #require(Digest(hex: digest))]) }.isEmpty)
            // The upgraded store goes on working: an edit, an import batch, a new poster.
            #expect(try board.edit(id: 2, hashtags: ["z", "y"]).hashtags == ["z", "y"])
            let stored = try board.poster(id: 2)
            let batch = [NewPoster(contents: stored.contents, hashtags: ["z", "y"], images: stored.images)]
            let outcomes = try board.commitImport(batch + [NewPoster(contents: "new", hashtags: ["n"], images: stored.images)], images: [])
            #expect(outcomes == [.existing(2), .inserted(4)])
            #expect(try board.poster(id: 4).hashtags == ["n"])
            #expect(try board.search(query: "y").map(\.id) == [2])
            #expect(try upgraded.integrityProblems().isEmpty)
        }
    }

    @Test func anAltTextlessDatabaseUpgradesAndKeepsItsPosters() throws {
        // A version 6 database as version 6 wrote it: today's, less what steps 7 to 16 added.
        let (url, folder, posted) = try Self.olderDatabase { board in
            try board.post(PosterDraft(image1: .file(StoreContractTests.cat), image2: .file(StoreContractTests.dog), contents: "猫か犬か"))
        } undo: { connection in
            try TestPostgres.undoPostingLists(on: connection)
            try connection.execute(
                """
                DROP TABLE search_reading;
                DROP INDEX poster_trending; ALTER TABLE poster DROP COLUMN trend;
                DROP TABLE vote_batch, vote_log_oldest, vote_log, vote_moved, vote_log_time;
                DROP TABLE post_proof_key, post_proof_spent;
                DROP TABLE vote_bucket, timeline_fold;
                DROP TABLE blocked_image; ALTER TABLE blob DROP COLUMN phash;
                DROP TABLE report, report_cleared, poster_hidden, audit;
                ALTER TABLE poster DROP COLUMN alt1, DROP COLUMN alt2; DELETE FROM tenbin_schema WHERE version >= 7
                """)
        }
        let upgraded = try PostgresStore(url: url, poolSize: 1)
        #expect(try upgraded.schemaVersion() == PostgresSchema.latestVersion)
        let board = Board(folder.configuration(), store: upgraded, blobs: BlobStore(storeFolder: folder.path))
        #expect(try board.poster(id: posted.id) == posted)
        let described = try board.post(
            PosterDraft(image1: .file(StoreContractTests.dog), image2: .file(StoreContractTests.cat), alt1: "犬", alt2: "A cat"))
        #expect(try board.poster(id: described.id).alt2 == "A cat")
        #expect(try upgraded.integrityProblems().isEmpty)
    }

    @Test func aHiddenPosterStaysHiddenAcrossStep16AndCheckNamesARowWhoseMarkDisagrees() throws {
        // A version 15 database with one poster hidden: today's, less step 16's column.
        let (url, folder, posters) = try Self.olderDatabase { board in
            let posters = try board.quickPost([("猫 a", []), ("猫 b", []), ("猫 c", [])])
            _ = try board.hide(id: posters[1].id, actor: "moderator")
            return posters
        } undo: { connection in
            try connection.execute("ALTER TABLE poster DROP COLUMN hidden; DELETE FROM tenbin_schema WHERE version >= 16")
        }
        let store = try PostgresStore(url: url, poolSize: 1)
        defer { store.close() }
        #expect(try store.schemaVersion() == PostgresSchema.latestVersion)
        let board = Board(folder.configuration(), store: store, blobs: BlobStore(storeFolder: folder.path))
        let visible = [posters[2].id, posters[0].id]
        for order in [FeedOrder.new, .popular, .trending] {
            #expect(try board.posters(order: order).map(\.id).sorted(by: >) == visible, "\(order)")
        }
        #expect(try board.search(query: "猫").map(\.id) == visible)
        #expect(throws: BoardError.noSuchPoster(posters[1].id)) { try board.vote(id: posters[1].id, side: .first) }
        #expect(try store.integrityProblems().isEmpty)
        // Restored, then hidden again: the mark follows.
        try board.restore(id: posters[1].id, actor: "moderator")
        #expect(try board.posters().map(\.id) == posters.map(\.id).reversed())
        _ = try board.hide(id: posters[1].id, actor: "moderator")
        #expect(try board.posters().map(\.id) == visible)
        // A mark that disagrees with `poster_hidden` (a hand-edited database) is named, both
        // ways, and mended by hiding or restoring the poster.
        try store.pool.withConnection { connection in
            try connection.execute("UPDATE poster SET hidden = false WHERE id = \(posters[1].id)")
            try connection.execute("UPDATE poster SET hidden = true WHERE id = \(posters[0].id)")
        }
        let problems = try store.integrityProblems()
        #expect(
            problems == [
                "poster \(posters[0].id)'s row is marked hidden but the poster is not hidden: the public cannot see it (`tenbin moderation restore` clears the mark)",
                "poster \(posters[1].id) is hidden but its row is not marked so: the public sees it (`tenbin moderation hide` marks it)",
            ])
        _ = try board.hide(id: posters[1].id, actor: "moderator")
        try board.restore(id: posters[0].id, actor: "moderator")
        #expect(try store.integrityProblems().isEmpty)
        #expect(try board.posters().map(\.id) == visible)
    }

    @Test func checkNamesAPosterWhoseHashtagsAreNotAListOfTags() throws {
        let folder = try TemporaryStore()
        let store = try PostgresStore(url: try TestPostgres.freshDatabase(), poolSize: 1)
        let board = Board(folder.configuration(), store: store, blobs: BlobStore(storeFolder: folder.path))
        let posters = try board.quickPost([("a", ["x"]), ("b", ["y"]), ("c", [])])
        #expect(try store.integrityProblems().isEmpty)
        try store.pool.withConnection { connection in
            try connection.query("UPDATE poster SET hashtags = ARRAY['x', NULL] WHERE id = \(posters[0].id)")
            try connection.query("UPDATE poster SET hashtags = ARRAY[ARRAY['y']] WHERE id = \(posters[1].id)")
        }
        let problems = try store.integrityProblems()
        #expect(problems.contains("poster \(posters[0].id)'s hashtags are not a list of tags"), "\(problems)")
        #expect(problems.contains("poster \(posters[1].id)'s hashtags are not a list of tags"), "\(problems)")
        #expect(!problems.contains { $0.contains("poster \(posters[2].id)") })
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
