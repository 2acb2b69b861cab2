import Testing

@testable import TenbinKit
@testable import TenbinPostgres

/// Search on PostgreSQL past the newest keys: posters whose ids are spread far apart, found
/// from the posting lists (schema step 15) exactly as the scan and SQLite find them, through
/// statements planned once.
@Suite(.enabled(if: TestPostgres.isAvailable), .timeLimit(.minutes(10)))
struct PostgresSearchTests {
    @Test func wordsCommonAndRareAreFoundAcrossSpreadIdsAsTheScanFindsThem() throws {
        let folder = try TemporaryStore()
        let store = try PostgresStore(url: try TestPostgres.freshDatabase(), poolSize: 1)
        let board = Board(folder.configuration(), store: store, blobs: BlobStore(storeFolder: folder.path))
        // 600 posters: ids from 1 to about 60,000 (gaps of up to 400 ids), then 300 posters in
        // a row (more than the walk reads), so words common and rare are asked for windows of
        // every kind.
        var state: UInt64 = 12_345
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        // A poster with no text at all: no pieces, so nothing qualified by its window either.
        var id = try board.quickPost("").id
        for number in 0..<600 {
            var words = [number % 2 == 0 ? "猫" : "犬"]
            if next(20) == 0 { words.append("東京") }
            if next(150) == 0 { words.append("ラーメン") }
            if number == 17 { words.append("きのこ") }
            let poster = try board.quickPost(words.joined(separator: "と") + " \(number)", hashtags: next(5) == 0 ? ["Tag"] : [])
            #expect(poster.id > id)
            id = poster.id + Int64(number < 300 ? 1 + next(400) : next(2))
            _ = try store.pool.withConnection { connection in
                try connection.query("SELECT setval(pg_get_serial_sequence('poster', 'id'), \(id))")
            }
        }
        for query in ["猫", "犬", "東京", "らーめん", "きのこ", "猫 東京", "ﾗｰﾒﾝ 犬", "tag", "と", "1", "42", "どこにもない"] {
            let all = try board.scanSearchIDs(query: query)
            #expect(try board.search(query: query, limit: 1000).map(\.id) == all, "query \(query)")
            #expect(try board.search(query: query).map(\.id) == Array(all.prefix(20)), "first page of \(query)")
            #expect(try board.search(query: query, limit: 7, offset: 30).map(\.id) == Array(all.dropFirst(30).prefix(7)), "offset \(query)")
            let popular = try board.scanSearchIDs(query: query, order: .popular)
            #expect(try board.search(query: query, order: .popular, limit: 1000).map(\.id) == popular, "popular \(query)")
            // Below a cursor deep in the board, as a later page asks.
            if all.count > 40 {
                let after = FeedPosition(id: all[35])
                let below = try store.read { reading in
                    try Board.searchIDs(SearchQuery(query), order: .new, after: after, offset: 0, limit: 20, in: reading)
                }
                #expect(below == Array(all.dropFirst(36).prefix(20)), "after a cursor, \(query)")
            }
        }
        // Every search statement was prepared on the pool's one connection and planned once,
        // generically: never for its values.
        let plans = try store.pool.withConnection { connection in
            try connection.query(
                """
                SELECT generic_plans, custom_plans, statement FROM pg_prepared_statements
                WHERE statement LIKE '%search_key k%' OR statement LIKE '%search_posting%'
                """)
        }
        let statements = (0..<plans.count).map { plans.text($0, 2) }
        // The walk of the newest keys and the posting lists' blocks both ran.
        #expect(statements.contains { $0.contains("p.id < $1") })
        #expect(statements.contains { $0.contains("LATERAL") })
        for row in 0..<plans.count {
            #expect(try plans.int(row, 0) >= 1 && plans.int(row, 1) == 0)
        }
    }

    @Test func wordsOfOneOrTwoCharactersAreFoundAsSQLiteFindsThem() throws {
        let folder = try TemporaryStore()
        let store = try PostgresStore(url: try TestPostgres.freshDatabase(), poolSize: 1)
        let board = Board(folder.configuration(), store: store, blobs: BlobStore(storeFolder: folder.path))
        let sqliteFolder = try TemporaryStore()
        let sqlite = try BackendUnderTest.all[0].board(sqliteFolder)
        // Width and kana folded (ﾈｺ, ｶﾞ, ＡＢ), a ligature that folds to two letters, a
        // character whose fold holds a space, words at the boundary between contents and
        // hashtags (東|京, a contents ending in CR before the separator's LF), and filler.
        var texts: [(String, [String])] = [
            ("猫と東", ["京都"]), ("ﾈｺ派", ["ＡＢ"]), ("ｶﾞチャ", []), ("ab\r", ["cd"]), ("x\r\ny", ["z"]), ("ﬀ", ["東京"]),
            ("a¨b", []), ("🐱 ねこ", ["#ネコ", "b"]), ("", []), ("", ["京"]),
        ]
        for number in 0..<400 { texts.append((number % 3 == 0 ? "ねこ \(number)" : "いぬ \(number)", number % 7 == 0 ? ["Tag"] : [])) }
        // LIKE's own characters, among the newest keys, which the server tests with LIKE.
        texts += [("100%", ["a_b"]), ("c\\d", ["%_"]), ("a%b", [])]
        let ids = try board.quickPost(texts).map { $0.id }
        #expect(try sqlite.quickPost(texts).map { $0.id } == ids)
        let queries = [
            "猫", "ねこ", "ﾈｺ", "ネ", "ｺ", "が", "か", "ｶﾞ", "ab", "ＡＢ", "b", "東京", "東", "京", "bc", "b\rc", "yz", "y", "ﬀ", "ff",
            "¨", "🐱", "#ネコ", "ねこ 1", "1 2", "ね こ", "いぬ", "い 9", "tag", "ta", "42 ね", "ない",
            "%", "0%", "_", "a_", "\\", "c\\", "%_", "a%", "\\d",
        ]
        for query in queries {
            let all = try board.scanSearchIDs(query: query)
            #expect(try sqlite.search(query: query, limit: 1000).map(\.id) == all, "SQLite, \(query)")
            #expect(try board.search(query: query, limit: 1000).map(\.id) == all, "query \(query)")
            #expect(try board.search(query: query).map(\.id) == Array(all.prefix(20)), "first page of \(query)")
            #expect(try board.search(query: query, limit: 5, offset: 12).map(\.id) == Array(all.dropFirst(12).prefix(5)), "offset \(query)")
            let fields: (Poster) -> [String] = { [String($0.id), $0.contents] + $0.hashtags }
            let posters = try board.search(query: query, limit: 3).map(fields)
            #expect(try posters == sqlite.search(query: query, limit: 3).map(fields), "posters of \(query)")
            var cursor: PageCursor?
            var walked: [Int64] = []
            repeat {
                let page = try board.searchPage(query: query, limit: 7, after: cursor)
                walked += page.posters.map { $0.id }
                cursor = page.next
            } while cursor != nil
            #expect(walked == all, "pages of \(query)")
        }
        // Newest first, PostgreSQL answers them whole, rechecking only posters marked stale;
        // other orders are the core's.
        #expect(try store.readSearchPosters(SearchQuery("ねこ"), after: nil, offset: 0, limit: 20) == board.search(query: "ねこ"))
        #expect(try store.visibleSearchPosters(SearchQuery("ねこ"), order: .popular, after: nil, offset: 0, limit: 20) == nil)
    }

    @Test func postersSpreadOverAMillionIdsAreFoundInEveryOrderAsTheScanFindsThem() throws {
        let folder = try TemporaryStore()
        let store = try PostgresStore(url: try TestPostgres.freshDatabase(), poolSize: 1)
        let board = Board(folder.configuration(), store: store, blobs: BlobStore(storeFolder: folder.path))
        _ = try board.quickPost("")  // the stand-in images' blob rows
        // 5,000 posters 200 ids apart up to about id 1,000,000, then 1,000 in a row: words of
        // every frequency, for one term and for several, in segments of every size (the
        // posters indexed 250 at a time, so merges run).
        var ids: [Int64] = []
        for number in 0..<6_000 { ids.append(number < 5_000 ? 2 + 200 * Int64(number) : 1_000_000 + Int64(number)) }
        let texts = (0..<6_000).map { number -> String in
            let words: [(String, Bool)] = [
                ("あ", number % 8 == 0), ("い", number % 10 == 3), ("う", number % 16 == 5), ("え", number % 300 == 7), ("お", true),
                ("か", number % 4 == 1), ("き", number % 5 == 2), ("さ", number % 2 == 0), ("し", number % 5 == 0),
                // Common, but only among the older posters: popular order's estimate from the
                // newest keys says few, and more than 2,000 are found.
                ("そ", number < 5_000 && number % 2 == 0),
                // Rare: in popular order, gathered from the index and ranked (none among the
                // posters with most votes: votes as set below) or walked on past them (six).
                ("た", number < 5_000 && number % 40 == 0 && ids[number] % 7 + (ids[number] / 7) % 3 <= 2), ("せ", number % 1_000 == 11),
            ]
            let present: [String] = words.filter { $0.1 }.map { $0.0 }
            return present.joined(separator: " ") + " \(number % 10)"
        }
        try store.pool.withConnection { connection in
            try connection.transaction {
                try connection.query(
                    """
                    INSERT INTO poster (id, contents, created_at, image1, image2, \(unescaped: PostgresStore.imageColumnNames))
                    SELECT id, convert_to(t, 'UTF8'), 0, b1.digest, b2.digest,
                        \(unescaped: PostgresStore.imageColumns.map { "b\($0.side).\($0.blobColumn)" }.joined(separator: ", "))
                    FROM unnest(\(ids)::bigint[], \(texts)::text[]) AS u(id, t), blob b1, blob b2
                    WHERE b1.digest = \(Board.standInImages[0].digest.hex) AND b2.digest = \(Board.standInImages[1].digest.hex)
                    """)
                let records = texts.map { SearchRecord(contents: $0, hashtags: []) }
                try connection.query(
                    "INSERT INTO search_key (poster_id, key) SELECT * FROM unnest(\(ids)::bigint[], \(records.map(\.key))::text[])")
                let session = PostgresSession(connection)
                for start in stride(from: 0, to: ids.count, by: 250) {
                    let end = min(ids.count, start + 250)
                    try session.indexSearch(ids: Array(ids[start..<end]), search: Array(records[start..<end]))
                }
                try connection.query("SELECT setval(pg_get_serial_sequence('poster', 'id'), \(ids.last!))")  // 6,000 ids
                // Votes, many tied, so popular order ranks by votes and then by id.
                try connection.execute("UPDATE poster SET good1 = id % 7, good2 = (id / 7) % 3")
                // Half the keys beside the votes, half left to be looked up (as a long key is),
                // so the walk by votes takes both ways.
                try connection.execute("UPDATE poster p SET walk_key = k.key FROM search_key k WHERE k.poster_id = p.id AND p.id % 2 = 0")
            }
        }
        for query in ["あ", "い", "う", "え", "お", "か き", "さ し", "あ 3", "え 7", "そ", "そ 4", "た", "せ", "せ 1", "ない"] {
            let all = try board.scanSearchIDs(query: query)
            for (limit, offset) in [(20, 0), (17, 0), (1, 0), (5, 40), (3000, 0)] {
                let found = try board.search(query: query, limit: limit, offset: offset).map { $0.id }
                #expect(found == Array(all.dropFirst(offset).prefix(limit)), "\(query), \(limit) after \(offset)")
            }
            try expectPopularAsScanned(query, on: board, pages: [(20, 0), (5, 40), (3000, 0)])
            // Below a cursor in the sparse part, as a later page asks.
            let deep = try board.searchPosters(SearchQuery(query), order: .new, after: FeedPosition(id: 600_001), offset: 0, limit: 20)
            #expect(deep.map { $0.id } == Array(all.filter { $0 < 600_001 }.prefix(20)), "below 600,001, \(query)")
        }
    }

    @Test func theWalkByVotesFindsLongKeysEditedKeysAndCursorsAsTheScanFindsThem() throws {
        let folder = try TemporaryStore()
        let store = try PostgresStore(url: try TestPostgres.freshDatabase(), poolSize: 1)
        let board = Board(folder.configuration(), store: store, blobs: BlobStore(storeFolder: folder.path))
        // Ids from 100,001: the newest keys, all holding ね, promise far more than 8,000
        // matches, so popular order walks the posters by votes rather than gathering them.
        _ = try board.quickPost("")
        _ = try store.pool.withConnection { try $0.query("SELECT setval(pg_get_serial_sequence('poster', 'id'), 100000)") }
        let long = String(repeating: "長い文章", count: 60)  // 720 bytes: too long for the index
        var texts: [(String, [String])] = []
        for number in 0..<300 {
            let word = number % 3 == 0 ? "ねこ" : "ネコ派"
            texts.append((number % 10 == 4 ? long + word : "\(word) \(number)", number % 7 == 0 ? ["犬"] : []))
        }
        let posters = try board.quickPost(texts)
        for (index, poster) in posters.enumerated() where index % 4 != 0 {
            _ = try board.vote(id: poster.id, side: index % 2 == 0 ? .first : .second, times: 1 + index % 5)
        }
        let missing = try store.pool.withConnection { connection in
            try connection.query("SELECT count(*) FROM poster WHERE walk_key IS NULL AND id > 100000").int(0, 0)
        }
        #expect(missing == 30)
        // A short key made long by an edit, and a long one made short.
        _ = try board.edit(id: posters[1].id, contents: long + "ねこ")
        _ = try board.edit(id: posters[4].id, contents: "ねこ 4")
        func expectScan(_ query: String) throws {
            try expectPopularAsScanned(query, on: board, pages: [(20, 0), (7, 3), (500, 0)])
        }
        for query in ["ね", "ねこ", "こ 犬", "長", "ね 長", "派 1", "ない"] { try expectScan(query) }
        #expect(try store.integrityProblems().isEmpty)
        // Votes move posters in the walk.
        _ = try board.vote(id: posters[299].id, side: .first, times: 50)
        #expect(try board.search(query: "ね", order: .popular, limit: 1).map { $0.id } == [posters[299].id])
        try expectScan("ね")
        // A key beside the votes that is not the poster's key is named by check.
        _ = try store.pool.withConnection { connection in
            try connection.query("UPDATE poster SET walk_key = 'x' WHERE id = \(posters[2].id)")
        }
        _ = try store.pool.withConnection { connection in
            try connection.query("UPDATE poster SET image2_width = image2_width + 1 WHERE id = \(posters[3].id)")
        }
        #expect(
            try store.integrityProblems() == [
                "poster \(posters[3].id)'s copies of its images' rows do not match them",
                "poster \(posters[2].id)'s key in the popular index does not match its search key",
            ])
        // `check --repair` rebuilds every search record from the text: the copy beside the
        // votes, and keys and pieces damaged or lost. The image rows' copies are not search's.
        _ = try store.pool.withConnection { connection in
            try connection.execute(
                """
                UPDATE search_posting SET postings = '\\x0005ff' WHERE (segment, piece) = (SELECT segment, piece FROM search_posting LIMIT 1);
                UPDATE search_key SET key = 'いぬ' WHERE poster_id = \(posters[6].id);
                DELETE FROM search_key WHERE poster_id = \(posters[7].id)
                """)
        }
        #expect(try store.integrityProblems().count == 5)
        let rebuilt = try board.rebuildSearch()
        #expect(rebuilt == 301, "\(rebuilt)")
        #expect(try store.integrityProblems() == ["poster \(posters[3].id)'s copies of its images' rows do not match them"])
        for query in ["ね", "ねこ", "こ 犬", "長", "ね 長", "派 1", "ない", "ねこ 6", "7"] { try expectScan(query) }
        #expect(try board.search(query: "ねこ 6", limit: 500).map(\.id).contains(posters[6].id))
    }

    @Test func theWalkReadsTheIndexsPiecesBackFromTheirTokens() {
        let key = SearchText.key(contents: "ＡＢ東京🐱 cat", hashtags: ["ラーメン"])
        let tokens = SearchGrams.tokens(forKey: key)
        let pieces = tokens.compactMap(SearchGrams.piece(ofToken:))
        #expect(pieces.count == tokens.count)
        #expect(SearchGrams.key(key, holdsEvery: pieces))
        for word in ["ab", "東京", "🐱", "らー", "め", "c"] {
            let terms = SearchGrams.terms(for: SearchQuery(word)).compactMap { SearchGrams.piece(ofToken: $0.token) }
            #expect(!terms.isEmpty && SearchGrams.key(key, holdsEvery: terms), "\(word)")
        }
        // Pieces never span the separator between contents and hashtags.
        let spanning = SearchGrams.terms(for: SearchQuery("t" + "ら")).compactMap { SearchGrams.piece(ofToken: $0.token) }
        #expect(!SearchGrams.key(key, holdsEvery: spanning))
        #expect(!SearchGrams.key(key, holdsEvery: [Array("犬".utf8)]))
        #expect(SearchGrams.piece(ofToken: "~11.3") == nil && SearchGrams.piece(ofToken: "zzzzzzzz") == nil)
    }

    /// A search of `query` in popular order answers each page (`limit` after `offset`) and the
    /// page after a cursor at the 30th poster as the scan of every key orders them.
    private func expectPopularAsScanned(_ query: String, on board: Board, pages: [(limit: Int, offset: Int)]) throws {
        let popular = try board.scanSearchIDs(query: query, order: .popular)
        for (limit, offset) in pages {
            let found = try board.search(query: query, order: .popular, limit: limit, offset: offset).map { $0.id }
            #expect(found == Array(popular.dropFirst(offset).prefix(limit)), "popular \(query), \(limit) after \(offset)")
        }
        if popular.count > 30 {
            let after = try board.poster(id: popular[29])
            let page = try board.searchPosters(SearchQuery(query), order: .popular, after: FeedPosition(after), offset: 0, limit: 20)
            #expect(page.map { $0.id } == Array(popular.dropFirst(30).prefix(20)), "popular after a cursor, \(query)")
        }
    }
}
