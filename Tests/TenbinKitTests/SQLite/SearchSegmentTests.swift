import Foundation
import Testing

@testable import TenbinKit
@testable import TenbinSQLite

/// SQLite's index of its own (schema 8): posting lists and their blocks, segments and their
/// merges, stale entries, damage, and answers that stay exactly a scan's however the
/// segments fell.
@Suite struct SearchSegmentTests {
    typealias SearchStore = SearchIndexTests.SearchStore

    // MARK: Lists and blocks

    @Test func aPostingListRoundTripsHighestFirst() {
        for ids: [Int64] in [[1], [5, 4, 3], [Int64.max, 1], [1_000_000, 999_999, 12, 11, 1], [300, 170, 42]] {
            var bytes: [UInt8] = []
            PostingCoding.encode(descending: ids, into: &bytes)
            #expect(PostingCoding.decode(bytes, bytes.indices) == ids)
            var cursor = PostingCursor(bytes, bytes.indices)
            cursor.seek(atMost: ids.last!)
            #expect(cursor.current == ids.last)
            cursor.seek(atMost: 0)
            #expect(cursor.current == nil && !cursor.isDamaged)
        }
        // A common piece costs a byte a poster.
        var bytes: [UInt8] = []
        PostingCoding.encode(descending: (1...1000).reversed().map(Int64.init), into: &bytes)
        #expect(bytes.count == 1001)
    }

    @Test func bytesThatAreNoPostingListAreDamageNotACrash() {
        let damaged: [(String, [UInt8])] = [
            ("empty", []),
            ("cut off in a varint", [0x85]),
            ("a first id of 0", [0x00]),
            ("a gap of 0 (a repeated id)", [0x05, 0x00]),
            ("a gap down to 0", [0x05, 0x05]),
            ("a gap below 0", [0x05, 0x09]),
            ("a varint of ten bytes", Array(repeating: 0xFF, count: 9) + [0x01]),
        ]
        for (label, bytes) in damaged {
            #expect(PostingCoding.decode(bytes, bytes.indices) == nil, "\(label)")
        }
        // A reader stops at the damage with what it could read.
        var cursor = PostingCursor([0x05, 0x01, 0x09], 0..<3)
        #expect(cursor.current == 5)
        cursor.advance()
        #expect(cursor.current == 4)
        cursor.advance()
        #expect(cursor.current == nil && cursor.isDamaged)
    }

    @Test func blocksHoldListsInOrderOfPieceAndALongListAlone() throws {
        var blocks: [(UInt64, [UInt8])] = []
        var writer = PostingBlock.Writer { blocks.append(($0, $1)) }
        let long = Array(repeating: UInt8(1), count: PostingBlock.targetSize + 10)
        let lists: [(UInt64, [UInt8])] = [(3, [7]), (4, [9, 1]), (1 << 30, long), (1 << 31, [2])]
        for (piece, list) in lists { try writer.append(piece, list: list) }
        try writer.finish()
        #expect(blocks.map(\.0) == [3, 1 << 30, 1 << 31])
        var read: [(UInt64, [UInt8])] = []
        for (first, block) in blocks {
            #expect(
                PostingBlock.forEach(block, firstPiece: first) { piece, range in
                    read.append((piece, Array(block[range])))
                    return true
                })
        }
        #expect(read.map(\.0) == lists.map(\.0) && read.map(\.1) == lists.map(\.1))
        // A length past the end, or a second entry that does not move on, is no block.
        #expect(!PostingBlock.forEach([0, 5, 1], firstPiece: 1) { _, _ in true })
        #expect(!PostingBlock.forEach([0, 1, 1, 0, 1, 1], firstPiece: 1) { _, _ in true })
        #expect(!PostingBlock.forEach([], firstPiece: 1) { _, _ in true })
    }

    // MARK: Segments

    /// How many rows `sql` gives each value of its one column.
    static func tally(_ s: SearchStore, _ sql: String) throws -> [Int64: Int] {
        let writer = try #require(try s.store.open()).writer
        return try writer.withLock { db in
            var counts: [Int64: Int] = [:]
            for value in try db.statement(sql).map({ $0.int64(0) }) { counts[value, default: 0] += 1 }
            return counts
        }
    }

    /// The levels and their segment counts.
    static func levels(_ s: SearchStore) throws -> [Int64: Int] {
        try tally(s, "SELECT level FROM search_segment")
    }

    /// Posters inserted as an import's batch (one transaction, one segment).
    @discardableResult
    static func addBatch(_ s: SearchStore, _ texts: [String]) throws -> [Int64] {
        try s.store.write { writing in
            for image in SearchStore.images { try writing.insertBlob(image, source: nil, encodingKey: "test") }
            return try writing.insertPosters(
                texts.map { NewPoster(contents: $0, hashtags: [], images: SearchStore.images) }, createdAt: Timestamp(secondsSince1970: 0),
                search: texts.map { SearchRecord(contents: $0, hashtags: []) })
        }
    }

    @Test func eachWriteIsASegmentAndEightOfALevelMergeIntoOne() throws {
        let s = try SearchStore()
        // A batch of 20 is one segment of level 1 (8–63 posters).
        try Self.addBatch(s, (0..<20).map { "一括 \($0)" })
        #expect(try Self.levels(s) == [1: 1])
        // Single posts are level 0; the eighth merges the eight into one of level 1.
        for index in 0..<7 { try s.add("単独 \(index)") }
        #expect(try Self.levels(s) == [0: 7, 1: 1])
        try s.add("単独 7")
        #expect(try Self.levels(s) == [1: 2])
        // Forty more make five more of level 1; eight more the eighth, and the eight merge into
        // one of level 2 (76 posters; 64–511).
        for index in 8..<48 { try s.add("単独 \(index)") }
        #expect(try Self.levels(s) == [1: 7])
        for index in 48..<56 { try s.add("単独 \(index)") }
        #expect(try Self.levels(s) == [2: 1])
        #expect(try s.ids("単独", limit: 1000).count == 56)
        #expect(try s.ids("一括", limit: 1000).count == 20)
        #expect(try s.store.integrityProblems() == [])
    }

    /// Each seed twice: merging whole as soon as a level is full (the default step is larger
    /// than these merges), and in steps of 8 times what each write wrote.
    @Test(arguments: [1, 2, 3, 4] as [UInt64], [SQLiteSession.searchMergeStep, 1])
    func answersAreAScansWhateverSegmentsHoldThem(seed: UInt64, mergeStep: Int) throws {
        let s = try SearchStore(searchMergeStep: mergeStep)
        var random = SplitMix64(seed: seed)
        let alphabet = Array("あいうえおかきくけこ猫犬海山ABab")
        func text() -> String { String((0..<Int.random(in: 1...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! }) }
        // Batches and single posts mixed, with edits and deletes between, so segments of every
        // level, merges, and stale entries all take part.
        var ids: [Int64] = []
        for round in 0..<12 {
            ids += try Self.addBatch(s, (0..<Int.random(in: 1...40, using: &random)).map { _ in text() })
            ids += try s.add((0..<Int.random(in: 1...4, using: &random)).map { _ in (text(), [text()]) })
            for _ in 0..<Int.random(in: 0...9, using: &random) { ids.append(try s.add(text(), [])) }
            if let id = ids.randomElement(using: &random) {
                _ = try s.board.edit(id: id, contents: text(), hashtags: [])
            }
            if round % 3 == 2, let id = ids.randomElement(using: &random) {
                try s.board.delete(id: id)
                ids.removeAll { $0 == id }
            }
        }
        for query in alphabet.map(String.init) + ["あい", "猫犬", "かきく", "a b", "海 山", "ab", "けこ猫", "AAA", "い う"] {
            for order in [FeedOrder.new, .popular] {
                let found = try s.board.search(query: query, order: order, limit: Int.max).map(\.id)
                #expect(found == (try s.board.scanSearchIDs(query: query, order: order)), "\(query) \(order)")
            }
        }
        #expect(try s.store.integrityProblems() == [])
    }

    /// The merges under way: each target segment and its number of sources.
    static func merges(_ s: SearchStore) throws -> [Int64: Int] {
        try tally(s, "SELECT target FROM search_merge")
    }

    @Test func aMergeMovesOnInStepsAndEveryStepAnswersAsAScan() throws {
        let s = try SearchStore(searchMergeStep: 64)
        var random = SplitMix64(seed: 9)
        let alphabet = Array("あいうえおかきくけこさしすせそ猫犬海山空")
        func text() -> String { String((0..<Int.random(in: 10...40, using: &random)).map { _ in alphabet.randomElement(using: &random)! }) }
        var ids: [Int64] = []
        // Seven batches of 50 posters, then one of 8: eight segments of level 1. The last
        // write's budget (8 times its own bytes) starts their merge but cannot finish it.
        for _ in 0..<7 { ids += try Self.addBatch(s, (0..<50).map { _ in text() }) }
        ids += try Self.addBatch(s, (0..<8).map { _ in text() })
        func expectScans(_ when: String) throws {
            for query in ["あ", "猫", "かき", "海 山", "いう え", "こ犬"] {
                for order in [FeedOrder.new, .popular] {
                    let found = try s.board.search(query: query, order: order, limit: Int.max).map(\.id)
                    #expect(found == (try s.board.scanSearchIDs(query: query, order: order)), "\(when): \(query) \(order)")
                }
            }
            #expect(try s.store.integrityProblems() == [], "\(when)")
        }
        #expect(try Self.merges(s).values.sorted() == [8])
        try expectScans("a merge just started")
        // Single posts of a character or two move it on a little each (their own segments are
        // merged whole, being small), with edits and deletes among them.
        var steps = 0
        while try !Self.merges(s).isEmpty {
            steps += 1
            ids.append(try s.add(String(text().prefix(steps % 2 + 1))))
            if steps % 5 == 0, let id = ids.randomElement(using: &random) {
                _ = try s.board.edit(id: id, contents: text(), hashtags: [])
            }
            if steps % 7 == 0, let id = ids.randomElement(using: &random) {
                try s.board.delete(id: id)
                ids.removeAll { $0 == id }
            }
            try expectScans("step \(steps)")
            try #require(steps < 1000, "the merge never finishes")
        }
        #expect(steps > 10, "the merge took \(steps) writes")
        try expectScans("the merge done")
        // The 358 posters are one segment of level 2 (64–511), beside the posts' own.
        #expect(try Self.levels(s)[2] == 1)
        let writer = try #require(try s.store.open()).writer
        let sizes = try writer.withLock { try $0.statement("SELECT posters FROM search_segment WHERE level = 2").map { $0.int(0) } }
        #expect(sizes == [358])
    }

    @Test func aStoreLeftInTheMiddleOfAMergeReopensAndFinishesIt() throws {
        let s = try SearchStore(searchMergeStep: 64)
        for batch in 0..<7 { try Self.addBatch(s, (0..<50).map { "途中 \(batch) \($0)" }) }
        try Self.addBatch(s, (0..<8).map { "最後 \($0)" })
        #expect(try !Self.merges(s).isEmpty)
        // Another process (a default store on the same folder) sees the merge under way,
        // answers from it, and finishes it in its next write.
        let other = try SQLiteStore(folder: s.folder.path, create: false)
        let board = Board(Board.Configuration(), store: other, blobs: BlobStore(storeFolder: s.folder.path))
        #expect(try board.search(query: "途中", limit: Int.max).count == 350)
        _ = try board.quickPost([("次", [])], images: SearchStore.images)
        #expect(try Self.merges(s).isEmpty)
        #expect(try board.search(query: "途中", limit: Int.max).count == 350)
        #expect(try board.search(query: "最後 7", limit: Int.max).count == 1)
        #expect(try other.integrityProblems() == [])
    }

    @Test func schemaNineMergesTheSegmentsSchemaEightLeftUnmerged() throws {
        let s = try SearchStore()
        let ids = try s.add((1...30).map { ("猫 \($0)", []) })
        let writer = try #require(try s.store.open()).writer
        try writer.withLock { db in
            try db.execute(
                NewerSchemas.undo
                    + "DELETE FROM search_posting; DELETE FROM search_segment; DROP TABLE search_merge; PRAGMA user_version = 8")
            try SQLiteSession.indexAllKeys(db, slice: 3)  // as migration 8 does, in slices of 3
        }
        #expect(try Self.levels(s) == [0: 10])
        // Opening the store upgrades it: eight of the ten are merged into one.
        let upgraded = try SQLiteStore(folder: s.folder.path, create: false)
        #expect(try Self.levels(s) == [0: 2, 1: 1])
        #expect(try Self.merges(s).isEmpty)
        let board = Board(Board.Configuration(), store: upgraded, blobs: BlobStore(storeFolder: s.folder.path))
        #expect(try board.search(query: "猫", limit: 100).map(\.id) == ids.reversed())
        #expect(try upgraded.integrityProblems() == [])
    }

    @Test func checkNamesAMergeOfASegmentThatDoesNotExist() throws {
        let s = try SearchStore()
        try s.add("一つ")
        let writer = try #require(try s.store.open()).writer
        try writer.withLock { db in try db.execute("INSERT INTO search_merge (source, target) VALUES (77, 78)") }
        #expect(
            try s.store.integrityProblems() == [
                "the search index is damaged (a merge names segments that do not exist: 77, 78); `tenbin check --repair` rebuilds it"
            ])
        #expect(try s.board.rebuildSearch() == 1)
        #expect(try s.store.integrityProblems() == [])
    }

    @Test func editedAndDeletedPostersLeaveStaleEntriesThatMergesDrop() throws {
        let s = try SearchStore()
        let edited = try s.add("りんごの季節")
        let deleted = try s.add("りんご飴")
        let kept = try s.add("りんご畑")
        _ = try s.board.edit(id: edited, contents: "みかんの季節", hashtags: [])
        try s.board.delete(id: deleted)
        let terms = SearchGrams.terms(for: SearchQuery("りんご"))
        // Until a merge, the index still names them; the recheck and the key table drop them.
        #expect(Set(try s.store.read { try $0.searchCandidateIDs(terms, limit: 100) }) == [edited, deleted, kept])
        #expect(try s.ids("りんご") == [kept])
        #expect(try s.ids("みかん") == [edited])
        // 64 segments of one poster (three posts, the edit's, 60 more) merge into one, which
        // holds no stale entry.
        for index in 0..<60 { try s.add("埋め草 \(index)") }
        #expect(try Self.levels(s) == [2: 1])
        #expect(try s.store.read { try $0.searchCandidateIDs(terms, limit: 100) } == [kept])
        #expect(try s.ids("みかん") == [edited])
        let writer = try #require(try s.store.open()).writer
        #expect(try writer.withLock { try $0.statement("SELECT count(*) FROM search_stale").first { $0.int(0) } } == 0)
    }

    @Test func aPrefixTermMatchesThePieceAndEveryPairStartingWithIt() throws {
        let s = try SearchStore()
        let pair = try s.add("xy")
        let alone = try s.add("x")
        let reversed = try s.add("yx")
        _ = try s.add("z")
        let token = SearchGrams.token(ofPiece: UInt64(UnicodeScalar("x").value))
        let found = try s.store.read { try $0.searchCandidateIDs([IndexTerm(token: token, isPrefix: true)], limit: 10) }
        #expect(Set(found) == [pair, alone, reversed])
        let exact = try s.store.read { try $0.searchCandidateIDs([IndexTerm(token: token + token)], limit: 10) }
        #expect(exact.isEmpty)
        let nothing = try s.store.read { try $0.searchCandidateIDs([IndexTerm(token: "not a token")], limit: 10) }
        #expect(nothing.isEmpty)
    }

    @Test func checkNamesADamagedBlockAndOneOutsideAnySegment() throws {
        let s = try SearchStore()
        try Self.addBatch(s, (0..<10).map { "壊れる \($0)" })
        #expect(try s.store.integrityProblems() == [])
        let writer = try #require(try s.store.open()).writer
        try writer.withLock { db in
            try db.execute(
                "UPDATE search_posting SET postings = x'0005ff' WHERE (segment, piece) = (SELECT segment, piece FROM search_posting LIMIT 1)"
            )
            try db.execute("INSERT INTO search_posting (segment, piece, postings) VALUES (999, 1, x'000101')")
        }
        let problems = try s.store.integrityProblems()
        #expect(problems.count == 1)
        #expect(problems.first?.contains("the search index is damaged (2 entries") == true, "\(problems)")
        // A query over the damage answers what it can read instead of failing.
        #expect(try s.ids("壊れる").count <= 10)
    }

    @Test func aMergeOverADamagedBlockFailsItsWriteWholeAndSaysSo() throws {
        let s = try SearchStore()
        for index in 0..<7 { try s.add("壊れた \(index)") }
        let writer = try #require(try s.store.open()).writer
        try writer.withLock { db in
            try db.execute("UPDATE search_posting SET postings = x'0005ff' WHERE segment = (SELECT min(id) FROM search_segment)")
        }
        // The eighth post merges the seven with its own segment, and cannot read the damaged one.
        #expect {
            try s.add("八つ目")
        } throws: { error in
            guard let error = error as? StoreError, case .damaged = error.reason else { return false }
            return error.description.contains(
                "the store is damaged (a block of its search index (segment 1) cannot be read; `tenbin check --repair` rebuilds the index)")
        }
        // Nothing of that post was kept: no poster, no segment, no merge.
        #expect(try s.board.count() == 7)
        #expect(try Self.levels(s) == [0: 7])
    }

    @Test func rebuildingSearchMendsEveryKindOfDamageCheckFinds() throws {
        let s = try SearchStore()
        var ids = try s.add((0..<7).map { ("壊れた \($0)", ["猫"]) })
        let edited = try s.add("古い言葉")
        _ = try s.board.edit(id: edited, contents: "新しい言葉", hashtags: [])
        let deleted = try s.add("消える")
        _ = try s.board.delete(id: deleted)
        let writer = try #require(try s.store.open()).writer
        try writer.withLock { db in
            try db.execute(
                """
                UPDATE search_posting SET postings = x'0005ff' WHERE segment = (SELECT min(id) FROM search_segment);
                INSERT INTO search_posting (segment, piece, postings) VALUES (999, 1, x'000101');
                UPDATE search_key SET key = 'いぬ' WHERE poster_id = \(ids[1]);
                DELETE FROM search_key WHERE poster_id = \(ids[2]);
                PRAGMA foreign_keys = OFF;
                INSERT INTO search_key (poster_id, key) VALUES (\(deleted), '消える');
                PRAGMA foreign_keys = ON;
                """)
        }
        // (The placeholder images have no files: those problems are not search's.)
        func searchProblems(_ report: CheckReport) -> [String] { report.problems.filter { !$0.hasPrefix("blob ") } }
        let before = searchProblems(try s.board.check())
        let damage = before.filter { $0.hasPrefix("database: the search index is damaged (2 entries") }
        #expect(damage.count == 1 && damage[0].hasSuffix("; `tenbin check --repair` rebuilds it"), "\(before)")
        #expect(
            Set(before).subtracting(damage) == [
                "database: row \(deleted) of table search_key references a missing row in poster",
                "database: poster \(ids[2]) has no search key; search cannot find it",
                "database: a search key remains for deleted poster \(deleted)",
                "poster \(ids[1])'s search key does not match its text",
            ], "\(before)")

        let after = try s.board.check(repairingSearch: true)
        #expect(after.searchRebuilt == 8)
        #expect(searchProblems(after).isEmpty, "\(after.problems)")
        // Writes go on, and search answers as a scan would.
        ids.append(try s.add("八つ目", ["猫"]))
        #expect(try s.ids("猫") == ids.reversed())
        #expect(try s.ids("壊れた 1") == [ids[1]])
        #expect(try s.ids("新しい") == [edited])
        #expect(try s.ids("古い").isEmpty)
        #expect(try s.ids("消える").isEmpty)
        // A rebuild of a sound store changes no answer.
        #expect(try s.board.rebuildSearch() == 9)
        #expect(try s.ids("猫") == ids.reversed())
        #expect(searchProblems(try s.board.check()).isEmpty)
    }
}
