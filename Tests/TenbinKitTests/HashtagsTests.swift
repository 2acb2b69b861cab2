import Testing

@testable import TenbinKit

@Suite struct HashtagsTests {
    @Test func tagsAreTrimmedAndLoseOneLeadingHashOfEitherWidth() {
        #expect(Hashtags.normalize(["  #猫 ", "＃犬", "bird"]) == ["猫", "犬", "bird"])
    }

    @Test func emptyTagsAndLaterDuplicatesAreDropped() {
        #expect(Hashtags.normalize(["a", " ", "#", "＃ ", "a", "#a", "b"]) == ["a", "b"])
    }

    @Test func fullWidthSpaceCountsAsWhiteSpace() {
        #expect(Hashtags.normalize(["\u{3000}東京\u{3000}"]) == ["東京"])
    }

    @Test func controlCharactersAreRemoved() {
        #expect(Hashtags.normalize(["a\u{1B}[31mb"]) == ["a[31mb"])
    }
}
