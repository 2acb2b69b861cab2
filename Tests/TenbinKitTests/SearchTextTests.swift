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
            if value >= 0x4E00 { #expect(ScalarMappings.compatibility.mapping(of: value) == nil, "U+\(String(value, radix: 16))") }
        }
    }

    /// The generated tables are searched by bisection: each must be in increasing order, and
    /// each key finds its own mapping and nothing between keys finds one.
    @Test func theGeneratedTablesAreSortedAndEveryKeyFindsItsOwnMapping() throws {
        for table in [ScalarMappings.compatibility, ScalarMappings.canonical] {
            #expect(zip(table.keys, table.keys.dropFirst()).allSatisfy { $0 < $1 })
            #expect(table.starts.count == table.keys.count + 1 && table.starts.last == UInt32(table.values.count))
            for (index, key) in table.keys.enumerated() {
                let mapping = try #require(table.mapping(of: key), "U+\(String(key, radix: 16))")
                #expect(Array(mapping) == Array(table.values[Int(table.starts[index])..<Int(table.starts[index + 1])]))
                #expect(!mapping.isEmpty)
                if index + 1 < table.keys.count && table.keys[index + 1] > key + 1 { #expect(table.mapping(of: key + 1) == nil) }
            }
            #expect(table.mapping(of: 0) == nil && table.mapping(of: 0x10FFFF) == nil)
            // The bitset that answers most characters without a search holds exactly the keys below U+10000.
            #expect(table.keysInBMP.reduce(0) { $0 + $1.nonzeroBitCount } == table.keys.count { $0 < 0x10000 })
        }
        // ＡＢＣ and ｶﾞ: full-width Latin, half-width kana and its voiced mark.
        #expect(ScalarMappings.compatibility.mapping(of: 0xFF21).map(Array.init) == [0x41])
        #expect(ScalarMappings.compatibility.mapping(of: 0xFF9E).map(Array.init) == [0x3099])
        let pairs = CanonicalMappings.compositionPairs
        #expect(zip(pairs, pairs.dropFirst()).allSatisfy { $0 < $1 } && pairs.count == CanonicalMappings.composites.count)
        #expect(CanonicalTable.composite(0x41, 0x300) == 0xC0)  // A + grave accent → À
        #expect(CanonicalTable.composite(0x3046, 0x3099) == 0x3094)  // う + voiced mark → ゔ
        #expect(CanonicalTable.composite(0x41, 0x41) == nil)
        let astral = CanonicalMappings.unstableAstral
        #expect(zip(astral, astral.dropFirst()).allSatisfy { $0 < $1 })
        for value in astral { #expect(CanonicalTable.isUnstable(value)) }
        #expect(CanonicalTable.isUnstable(0x301) && CanonicalTable.isUnstable(0x3099) && !CanonicalTable.isUnstable(0x3042))
    }
}
