import Testing

@testable import TenbinKit

@Suite struct SearchTextTests {
    @Test func fullWidthLatinAndDigitsBecomeAsciiLowercase() {
        #expect(SearchText.normalize("ＡＢＣ ａｂｃ １００") == "abc abc 100")
    }

    @Test func latinCaseIsFoldedBeyondAscii() {
        #expect(SearchText.normalize("Photo ÄÖÜ ΣΟΦΙΑ") == "photo äöü σοφια")
    }

    @Test func katakanaAndHiraganaSearchAlike() {
        #expect(SearchText.normalize("ネコ") == "ねこ")
        #expect(SearchText.normalize("ねこ") == "ねこ")
        #expect(SearchText.normalize("ヴァイオリン") == "ゔぁいおりん")
    }

    /// The katakana iteration marks fold like the rest of katakana: a word written with them
    /// finds the same word written in hiragana, and the other way round.
    @Test func katakanaIterationMarksFoldToTheirHiragana() {
        #expect(SearchText.normalize("ヽ") == "ゝ")
        #expect(SearchText.normalize("ヾ") == "ゞ")
        #expect(SearchText.normalize("コヽロ") == SearchText.normalize("こゝろ"))
        #expect(SearchText.normalize("イスヾ") == "いすゞ")
    }

    @Test func halfWidthKanaWidensAndItsVoicedMarksCompose() {
        #expect(SearchText.normalize("ｷﾉｺ") == "きのこ")
        #expect(SearchText.normalize("ﾃﾞｻﾞｲﾝ") == "でざいん")
        #expect(SearchText.normalize("ﾊﾟﾝ") == "ぱん")
        #expect(SearchText.normalize("ﾈｺ") == SearchText.normalize("ねこ"))
    }

    @Test func compatibilityCharactersDecompose() {
        #expect(SearchText.normalize("㌀") == "あぱーと")
        #expect(SearchText.normalize("①") == "1")
        #expect(SearchText.normalize("ﬁ") == "fi")
    }

    @Test func kanjiAndProlongedSoundMarksStayAsTheyAre() {
        #expect(SearchText.normalize("東京タワー") == "東京たわー")
    }

    @Test func decomposedAccentsCompose() {
        #expect(SearchText.normalize("Cafe\u{301}") == "café")
    }

    @Test func nulIsDroppedButOtherControlCharactersStay() {
        #expect(SearchText.normalize("a\u{0}b\u{1}c") == "ab\u{1}c")
    }

    @Test func theKeyHoldsContentsAndEachHashtagOnTheirOwnLine() {
        #expect(SearchText.key(contents: "ＡＢＣ or ａｂｃ?", hashtags: ["フォント", "Font"]) == "abc or abc?\nふぉんと\nfont")
    }

    /// What the normaliser's shortcuts for CJK text rely on.
    @Test func noCJKScalarChangesWhenLowercasedAndNoIdeographDecomposes() {
        for value in UInt32(0x3000)...0x9FFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(!scalar.properties.changesWhenLowercased, "U+\(String(value, radix: 16))")
            if value >= 0x4E00 { #expect(CompatibilityTable.shared.mapping(of: value) == nil, "U+\(String(value, radix: 16))") }
        }
    }
}
