import Testing

@testable import TenbinKit

@Suite struct SearchQueryTests {
    @Test func wordsAreSplitOnAnyWhiteSpaceIncludingIdeographicSpace() {
        #expect(SearchQuery.split(" 猫\u{3000}犬\t bird\n") == ["猫", "犬", "bird"])
        #expect(SearchQuery("猫\u{3000}犬").words == ["犬", "猫"].sorted(by: >))
    }

    @Test func aQueryOfOnlyWhiteSpaceIsEmpty() {
        #expect(SearchQuery("").isEmpty)
        #expect(SearchQuery(" \u{3000}\t\n").isEmpty)
    }

    @Test func oneLeadingHashOfEitherWidthIsDropped() {
        #expect(SearchQuery("#猫").words == ["猫"])
        #expect(SearchQuery("＃ﾈｺ").words == ["ねこ"])
        #expect(SearchQuery("##tag").words == ["#tag"])
        #expect(SearchQuery("a#b").words == ["a#b"])
    }

    @Test func aLoneHashLeavesNoWord() {
        #expect(SearchQuery("# ＃").isEmpty)
    }

    @Test func wordsAreNormalisedDistinctAndLongestFirst() {
        #expect(SearchQuery("ネコ ねこ ｷﾉｺ").words == ["きのこ", "ねこ"])
    }

    @Test func aWordInsideAnotherIsImplied() {
        #expect(SearchQuery("京 東京タワー 東京").words == ["東京たわー"])
    }

    @Test func keysMatchWhenEveryWordIsASubstring() {
        let key = SearchText.writtenKey(contents: "東京タワーとスカイツリー", hashtags: ["東京", "夜景"])
        // Readings are lines of a key of their own (SearchReadingsTests); as written, kana
        // never match kanji.
        #expect(SearchQuery("とうきょう").matches(key: key) == false)
        #expect(SearchQuery("タワー 夜景").matches(key: key))
        #expect(SearchQuery("たわー すかい").matches(key: key))
        #expect(SearchQuery("タワー 朝").matches(key: key) == false)
    }

    @Test func aWordNeverSpansTheContentsAndAHashtag() {
        let key = SearchText.key(contents: "ab", hashtags: ["cd"])
        #expect(SearchQuery("bc").matches(key: key) == false)
        #expect(SearchQuery("ab cd").matches(key: key))
    }
}
