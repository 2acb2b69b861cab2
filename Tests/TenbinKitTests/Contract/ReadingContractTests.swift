import Testing

@testable import TenbinKit

/// Search by reading on every backend (`BackendUnderTest.all`), through `Board` only: a query
/// typed in kana finds text written in kanji by its reading, a query in kanji only as
/// written, and a match never joins a reading to the text or to another stretch.
@Suite(.timeLimit(.minutes(10))) struct ReadingContractTests {
    @Test(arguments: BackendUnderTest.all)
    func aKanaQueryFindsKanjiByItsReading(backend: BackendUnderTest) throws {
        try #require(SearchReadings.unavailable == nil, "MeCab and mecab-ipadic-utf8 must be installed (make deps)")
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let posters = try board.quickPost([
            ("猫が好き", []), ("東京タワーの夜景", []), ("寿司か焼肉か", []), ("紙", []), ("髪", []), ("神", []), ("犬派", []),
        ])
        let ids = posters.map(\.id)
        #expect(try board.search(query: "ねこ").map(\.id) == [ids[0]])
        #expect(try board.search(query: "ネコ").map(\.id) == [ids[0]])
        #expect(try board.search(query: "ﾈｺ").map(\.id) == [ids[0]])
        #expect(try board.search(query: "とうきょう").map(\.id) == [ids[1]])
        #expect(try board.search(query: "とうきょうたわー").map(\.id) == [ids[1]])
        #expect(try board.search(query: "すし").map(\.id) == [ids[2]])
        #expect(try board.search(query: "すし やきにく").map(\.id) == [ids[2]])
        // Homophones all answer their sound; a kanji answers only itself.
        #expect(try board.search(query: "かみ").map(\.id) == [ids[5], ids[4], ids[3]])
        #expect(try board.search(query: "神").map(\.id) == [ids[5]])
        #expect(try board.search(query: "紙").map(\.id) == [ids[3]])
        // Kanji never match by reading, even beside kana: 犬は is not いぬは.
        #expect(try board.search(query: "いぬ").map(\.id) == [ids[6]])
        #expect(try board.search(query: "犬は").isEmpty)
        #expect(try board.search(query: "ねこ", order: .popular).map(\.id) == [ids[0]])
        // The stored text is as posted.
        #expect(try board.poster(id: ids[0]).contents == "猫が好き")
    }

    @Test(arguments: BackendUnderTest.all)
    func aHashtagIsFoundByItsReadingAndKeepsItsSpelling(backend: BackendUnderTest) throws {
        try #require(SearchReadings.unavailable == nil, "MeCab and mecab-ipadic-utf8 must be installed (make deps)")
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let posters = try board.quickPost([("どっち？", ["#猫"]), ("どっち？", ["ネコ"]), ("どっち？", ["ねこ"]), ("どっち？", ["犬"])])
        let ids = posters.map(\.id)
        for query in ["#ねこ", "＃ネコ", "ねこ", "#ﾈｺ"] {
            #expect(try board.search(query: query).map(\.id) == [ids[2], ids[1], ids[0]], "\(query)")
        }
        #expect(try board.search(query: "#猫").map(\.id) == [ids[0]])
        #expect(try board.poster(id: ids[0]).hashtags == ["猫"])
        #expect(try board.poster(id: ids[1]).hashtags == ["ネコ"])
    }

    @Test(arguments: BackendUnderTest.all)
    func aMatchNeverJoinsAReadingToTheTextOrToAnotherStretch(backend: BackendUnderTest) throws {
        try #require(SearchReadings.unavailable == nil, "MeCab and mecab-ipadic-utf8 must be installed (make deps)")
        let store = try TemporaryStore()
        let board = try backend.board(store)
        // がす is in the text of the first and すき in the reading of its tag: がすき is neither.
        // ねこ and まくら are readings of two stretches split by a space: ねこまくら is neither.
        let posters = try board.quickPost([("ガス", ["好き"]), ("猫 枕", []), ("ねこ", ["枕"]), ("がすき", [])])
        let ids = posters.map(\.id)
        #expect(try board.search(query: "がすき").map(\.id) == [ids[3]])
        #expect(try board.search(query: "がす すき").map(\.id) == [ids[3], ids[0]])
        #expect(try board.search(query: "ねこまくら").isEmpty)
        #expect(try board.search(query: "ねこ まくら").map(\.id) == [ids[2], ids[1]])
        #expect(try board.search(query: "こま").isEmpty)
        #expect(try board.search(query: "すき", order: .popular).map(\.id) == [ids[3], ids[0]])
    }

    @Test(arguments: BackendUnderTest.all)
    func editsAndTheRebuildKeepReadings(backend: BackendUnderTest) throws {
        try #require(SearchReadings.unavailable == nil, "MeCab and mecab-ipadic-utf8 must be installed (make deps)")
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let poster = try board.quickPost("猫")
        _ = try board.edit(id: poster.id, contents: "犬", hashtags: ["寿司"])
        #expect(try board.search(query: "ねこ").isEmpty)
        #expect(try board.search(query: "いぬ すし").map(\.id) == [poster.id])
        let report = try board.check(repairingSearch: true)
        #expect(report.searchRebuilt == 1)
        #expect(try board.search(query: "いぬ すし").map(\.id) == [poster.id])
        #expect(try board.check().problems.filter { !$0.hasPrefix("blob ") }.isEmpty)
    }
}
