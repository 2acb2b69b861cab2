import Foundation
import Testing

@testable import TenbinKit
@testable import TenbinSQLite

/// Search through the SQLite backend: the index, its upkeep, ordering, paging and hostile queries.
@Suite struct SearchIndexTests {
    /// A fresh store holding posters whose images are placeholder rows (search never reads
    /// images, and real ones would only slow the tests down).
    final class SearchStore {
        let folder: TemporaryStore
        let store: SQLiteStore
        let board: Board

        /// A store; `searchMergeStep` makes each write move merges on by less (see
        /// ``SQLiteSession/mergeBudget(written:)``).
        init(searchMergeStep: Int = SQLiteSession.searchMergeStep) throws {
            folder = try TemporaryStore()
            store = try SQLiteStore(folder: folder.path, create: true, searchMergeStep: searchMergeStep)
            board = Board(Board.Configuration(), store: store, blobs: BlobStore(storeFolder: folder.path))
        }

        static let images = ["a", "b"].map { character in
            StoredImage(
                digest: Digest(hex: String(repeating: character, count: 64))!, format: .jpeg, width: 1, height: 1, bytes: 1)
        }

        @discardableResult
        func add(_ contents: String, _ hashtags: [String] = []) throws -> Int64 {
            try add([(contents, hashtags)])[0]
        }

        @discardableResult
        func add(_ posters: [(String, [String])]) throws -> [Int64] {
            try board.quickPost(posters, images: Self.images).map(\.id)
        }

        func ids(_ query: String, order: FeedOrder = .new, limit: Int = 100, offset: Int = 0) throws -> [Int64] {
            try board.search(query: query, order: order, limit: limit, offset: offset).map(\.id)
        }
    }

    @Test func widthCaseAndKanaAreIgnoredInContentsAndHashtags() throws {
        let s = try SearchStore()
        let cat = try s.add("猫と犬、どっちが好き？", ["猫", "ネコ"])
        let font = try s.add("ＡＢＣ or ａｂｃ? １００点はどっち", ["フォント", "Font"])
        let kinoko = try s.add("ｷﾉｺ派？タケノコ派？", ["きのこ"])
        #expect(try s.ids("ねこ") == [cat])
        #expect(try s.ids("ﾈｺ") == [cat])
        #expect(try s.ids("abc 100") == [font])
        #expect(try s.ids("ＦＯＮＴ") == [font])
        #expect(try s.ids("ふぉんと") == [font])
        #expect(try s.ids("キノコ") == [kinoko])
        #expect(try s.ids("たけのこ") == [kinoko])
        #expect(try s.ids("どっち") == [font, cat])
    }

    @Test func reindexingEveryKeyInSlicesIndexesEveryPoster() throws {
        let s = try SearchStore()
        let ids = try s.add((1...25).map { ("猫 poster \($0)", []) })
        let writer = try #require(try s.store.open()).writer
        try writer.withLock { db in
            try db.execute("DELETE FROM search_posting; DELETE FROM search_segment")
            #expect(try s.ids("猫").isEmpty)
            try SQLiteSession.indexAllKeys(db, slice: 7)  // 7 + 7 + 7 + 4, then an empty slice
        }
        #expect(try s.ids("猫") == ids.reversed())
        #expect(try s.ids("poster 25") == [ids[24]])
    }

    @Test func oneAndTwoCharacterWordsWork() throws {
        let s = try SearchStore()
        let tokyo = try s.add("東京タワーとスカイツリー", ["夜景"])
        let kyoto = try s.add("京都の紅葉")
        let cat = try s.add("猫")
        let letter = try s.add("a")
        #expect(try s.ids("猫") == [cat])
        #expect(try s.ids("東京") == [tokyo])
        #expect(try s.ids("京") == [kyoto, tokyo])
        #expect(try s.ids("A") == [letter])
        #expect(try s.ids("ー") == [tokyo])
        #expect(try s.ids("夜") == [tokyo])
        #expect(try s.ids("都 紅") == [kyoto])
    }

    @Test func everyWordMustMatchTheContentsOrSomeHashtag() throws {
        let s = try SearchStore()
        let both = try s.add("ラーメン vs うどん", ["ラーメン", "食べ物"])
        _ = try s.add("ラーメン")
        #expect(try s.ids("ラーメン 食べ物") == [both])
        #expect(try s.ids("らーめん うどん 食") == [both])
        #expect(try s.ids("ラーメン 寿司") == [])
    }

    @Test func aWordNeverMatchesAcrossContentsAndAHashtag() throws {
        let s = try SearchStore()
        _ = try s.add("ab", ["cd", "ef"])
        #expect(try s.ids("bc") == [])
        #expect(try s.ids("de") == [])
    }

    @Test func aHashtagQueryFindsTheTagAndTheText() throws {
        let s = try SearchStore()
        let tagged = try s.add("どっち？", ["猫"])
        let mentioned = try s.add("この猫かわいい")
        _ = try s.add("犬", ["犬"])
        #expect(try s.ids("#猫") == [mentioned, tagged])
        #expect(try s.ids("＃猫") == [mentioned, tagged])
        #expect(try s.ids("猫") == [mentioned, tagged])
    }

    @Test func storedTextIsKeptExactlyAsPosted() throws {
        let s = try SearchStore()
        let id = try s.add("ＡＢＣ ｷﾉｺ ネコ", ["ﾃﾞｻﾞｲﾝ"])
        let poster = try #require(try s.board.search(query: "abc").first)
        #expect(poster.id == id)
        #expect(poster.contents == "ＡＢＣ ｷﾉｺ ネコ")
        #expect(poster.hashtags == ["ﾃﾞｻﾞｲﾝ"])
        #expect(try s.store.read { try $0.searchEntries(ids: [id]) }.map(\.key) == ["abc きのこ ねこ\nでざいん"])
    }

    @Test func resultsComeNewestFirstOrMostVotedFirstAndPage() throws {
        let s = try SearchStore()
        let ids = try s.add((0..<5).map { ("写真 \($0)", []) })
        _ = try s.board.vote(id: ids[1], side: .first, times: 5)
        _ = try s.board.vote(id: ids[3], side: .second, times: 2)
        #expect(try s.ids("写真") == ids.reversed())
        #expect(try s.ids("写真", limit: 2) == [ids[4], ids[3]])
        #expect(try s.ids("写真", limit: 2, offset: 2) == [ids[2], ids[1]])
        #expect(try s.ids("写真", offset: 5) == [])
        #expect(try s.ids("写真", order: .popular) == [ids[1], ids[3], ids[4], ids[2], ids[0]])
        #expect(try s.ids("写真", order: .popular, limit: 2, offset: 1) == [ids[3], ids[4]])
    }

    @Test func popularOrderIsRightWhetherMatchesAreFewOrMany() throws {
        let s = try SearchStore()
        // More matches than Board.popularCandidateLimit for 写真, fewer for 猫.
        let count = Board.popularCandidateLimit + 100
        let ids = try s.add((0..<count).map { ($0 % 3 == 0 ? "猫の写真 \($0)" : "写真 \($0)", []) })
        var votes: [Int64: Int] = [:]
        for (index, times) in [(10, 4), (20, 9), (30, 4), (count - 200, 1), (count - 50, 9)] {
            _ = try s.board.vote(id: ids[index], side: .first, times: times)
            votes[ids[index]] = times
        }
        func expected(_ matching: (Int) -> Bool, limit: Int, offset: Int) -> [Int64] {
            let matches = ids.indices.filter(matching).map { ids[$0] }
            let ranked = matches.sorted { (votes[$0] ?? 0, $0) > (votes[$1] ?? 0, $1) }
            return Array(ranked.dropFirst(offset).prefix(limit))
        }
        #expect(try s.ids("写真", order: .popular, limit: 7) == expected({ _ in true }, limit: 7, offset: 0))
        #expect(try s.ids("写真", order: .popular, limit: 3, offset: 4) == expected({ _ in true }, limit: 3, offset: 4))
        #expect(try s.ids("いぬ 写", order: .popular, limit: 7) == [])
        #expect(try s.ids("猫", order: .popular, limit: 7) == expected({ $0 % 3 == 0 }, limit: 7, offset: 0))
        #expect(try s.ids("猫 写真", order: .popular, limit: 3, offset: 2) == expected({ $0 % 3 == 0 }, limit: 3, offset: 2))
        #expect(try s.ids("写真 \(count - 50)", order: .popular) == [ids[count - 50]])
        // Pages after cursors, walking the posters by votes: one poster a page across the ties
        // (two with 9 votes, two with 4) and into the unvoted, then the rest in large pages.
        var cursor: PageCursor?
        var walked: [Int64] = []
        repeat {
            let page = try s.board.searchPage(query: "写真", order: .popular, limit: walked.count < 8 ? 1 : 500, after: cursor)
            walked += page.posters.map(\.id)
            cursor = page.next
        } while cursor != nil
        #expect(walked == expected({ _ in true }, limit: count, offset: 0))
    }

    @Test func deletingAPosterRemovesItFromTheIndexInTheSameTransaction() throws {
        let s = try SearchStore()
        let gone = try s.add("東京の夜景", ["東京"])
        let kept = try s.add("東京タワー")
        try s.board.delete(id: gone)
        #expect(try s.ids("東京") == [kept])
        #expect(try s.ids("夜景") == [])
        #expect(try s.store.read { try $0.searchEntries(ids: [gone]) }.isEmpty)
        #expect(try s.store.integrityProblems() == [])
    }

    @Test func reindexingAfterAnEditReplacesTheOldKey() throws {
        let s = try SearchStore()
        let id = try s.add("きのこ派", ["きのこ"])
        let edited = try s.board.edit(id: id, contents: "たけのこ派", hashtags: ["タケノコ"])
        #expect(edited.contents == "たけのこ派" && edited.hashtags == ["タケノコ"])
        #expect(try s.ids("きのこ") == [])
        #expect(try s.ids("たけのこ 派") == [id])
        #expect(try s.store.integrityProblems() == [])
        #expect(try s.board.searchKeyProblems().isEmpty)
    }

    @Test func aStoreFromBeforeSearchIsIndexedWhenOpened() throws {
        let folder = try TemporaryStore()
        let path = "\(folder.path)/tenbin.sqlite"
        do {
            let db = try Database(path: path, mode: .create)
            try db.execute(Migrations.steps[0].sql)
            try db.execute(
                """
                INSERT INTO blob (digest, format, width, height, bytes) VALUES ('\(String(repeating: "a", count: 64))', 'jpeg', 1, 1, 1);
                INSERT INTO poster (contents, created_at, image1, image2) VALUES
                    ('ｷﾉｺ派？', 0, '\(String(repeating: "a", count: 64))', '\(String(repeating: "a", count: 64))'),
                    ('海と山', 0, '\(String(repeating: "a", count: 64))', '\(String(repeating: "a", count: 64))');
                INSERT INTO hashtag (poster_id, position, tag) VALUES (2, 0, '夏');
                PRAGMA user_version = 1;
                """)
        }
        let board = try Board(folder: folder.path, create: false)
        #expect(try board.search(query: "きのこ").map(\.id) == [1])
        #expect(try board.search(query: "夏 海").map(\.id) == [2])
        #expect(try board.store.read { try $0.searchEntries(ids: [2]) }.map(\.key) == [SearchText.key(contents: "海と山", hashtags: ["夏"])])
    }

    @Test func anEmptyQueryFindsNothing() throws {
        let s = try SearchStore()
        _ = try s.add("anything", ["tag"])
        #expect(try s.ids("") == [])
        #expect(try s.ids(" \u{3000} ") == [])
        #expect(try s.ids("#") == [])
    }

    @Test func hostileQueriesGiveCorrectResultsNeverErrors() throws {
        let s = try SearchStore()
        let quote = try s.add("He said \"yes\" AND 'no'")
        let syntax = try s.add("NEAR(a b) * OR NOT 100% _x_ \\ ;")
        let control = try s.add("bell\u{7}ring\u{1B}[31m")
        let emoji = try s.add("🐱と🐶 👍🏽", ["🍜"])
        let long = try s.add(String(repeating: "長", count: 12_000))
        #expect(try s.ids("\"yes\"") == [quote])
        #expect(try s.ids("\"") == [quote])
        #expect(try s.ids("'no'") == [quote])
        #expect(try s.ids("'") == [quote])
        #expect(try s.ids("AND") == [quote])
        #expect(try s.ids("and") == [syntax, quote].filter { $0 == quote })
        #expect(try s.ids("NEAR(") == [syntax])
        #expect(try s.ids("*") == [syntax])
        #expect(try s.ids("OR NOT") == [syntax])
        #expect(try s.ids("100%") == [syntax])
        #expect(try s.ids("%") == [syntax])
        #expect(try s.ids("_") == [syntax])
        #expect(try s.ids("\\") == [syntax])
        #expect(try s.ids("'; DROP TABLE poster; --") == [])
        #expect(try s.ids("\u{7}") == [control])
        #expect(try s.ids("bell\u{7}ring\u{1B}") == [control])
        #expect(try s.ids("\u{0}") == [])
        #expect(try s.ids("🐱") == [emoji])
        #expect(try s.ids("👍") == [emoji])
        #expect(try s.ids("🍜 🐶") == [emoji])
        #expect(try s.ids("🦊") == [])
        #expect(try s.ids(String(repeating: "長", count: 10_000)) == [long])
        #expect(try s.ids(String(repeating: "長", count: 12_001)) == [])
        #expect(try s.ids(String(repeating: "x", count: 10_000)) == [])
        for query in ["%", "_", "\\", "100%", "'"] {
            #expect(try s.board.scanSearchIDs(query: query) == s.ids(query), "scan of \(query)")
        }
        #expect(try s.board.count() == 5)
    }

    @Test func aCancelledSearchStopsWithCancellationError() async throws {
        let s = try SearchStore()
        _ = try s.add((0..<600).map { ("同じ言葉 \($0)", []) })
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try s.board.search(query: "同じ", order: .popular, limit: 10)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
