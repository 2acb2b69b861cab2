import Testing

@testable import TenbinKit

/// How readings enter a search key (``SearchReadings``, ``SearchText/key(contents:hashtags:)``).
@Suite struct SearchReadingsTests {
    static func token(_ surface: String, _ reading: String?, space: Bool = false) -> MeCab.Token {
        MeCab.Token(surface: surface, reading: reading, followsSpace: space)
    }

    @Test func stretchesAreReadingsFoldedToHiraganaSplitAtSpacesAndUnknownKanji() {
        let tokens = [
            Self.token("猫", "ネコ"), Self.token("が", "ガ"), Self.token("ＡＢ", nil), Self.token("好き", "スキ"),
            Self.token("枕", "マクラ", space: true), Self.token("𠮷野", nil), Self.token("家", "ヤ"),
        ]
        #expect(SearchReadings.stretches(of: tokens) == ["ねこがabすき", "まくら", "や"])
    }

    @Test func readingsFoldAsTheKeyDoes() {
        for reading in ["ネコ", "トウキョウタワー", "ヴァイオリン", "ヽヾ", "ｶﾞｽ", "ＡＢ", "ﾈｺ", "ぁゖ", "＊"] {
            #expect(SearchReadings.folded(reading) == SearchText.normalize(reading), "\(reading)")
        }
    }

    @Test func aReadingHoldingKanjiIsDropped() {
        #expect(SearchReadings.stretches(of: [Self.token("々", "々")]).isEmpty)
    }

    @Test func theKeyAddsReadingLinesOnlyForTextWithKanji() throws {
        try #require(SearchReadings.unavailable == nil, "MeCab and mecab-ipadic-utf8 must be installed (make deps)")
        #expect(SearchText.key(contents: "猫が好き", hashtags: ["寿司", "ネコ"]) == "猫が好き\n寿司\nねこ\nねこがすき\nすし")
        #expect(SearchText.key(contents: "ねこ ABC", hashtags: ["ネコ"]) == "ねこ abc\nねこ")
        // A reading already in the text as written adds nothing.
        #expect(SearchText.key(contents: "東京 とうきょう", hashtags: []) == "東京 とうきょう")
        #expect(SearchText.isKey("猫", of: "猫", hashtags: []))
        #expect(SearchText.isKey("猫\nねこ", of: "猫", hashtags: []))
        #expect(!SearchText.isKey("猫\nいぬ", of: "猫", hashtags: []))
    }

    @Test func readingLinesNeverHoldKanji() throws {
        try #require(SearchReadings.unavailable == nil, "MeCab and mecab-ipadic-utf8 must be installed (make deps)")
        for item in ReadingPrecisionCases.all {
            let surface = SearchText.normalize(item.text)
            for line in SearchReadings.lines(of: item.text, surface: surface) {
                #expect(!line.unicodeScalars.contains(where: SearchReadings.isKanji), "\(item.text): \(line)")
            }
        }
    }
}
