import Testing

@testable import TenbinKit

/// The one definition of how much text a poster may have, and how a refusal reads.
@Suite struct PosterTextLimitsTests {
    @Test func textAtTheLimitsIsAccepted() throws {
        try PosterTextLimits.check(
            contents: String(repeating: "あ", count: 1365) + "a",  // 4,096 bytes
            hashtags: (0..<32).map { "#tag\($0)" + String(repeating: "x", count: 194 - "tag\($0)".utf8.count) + "猫猫" })
        #expect(String(repeating: "あ", count: 1365).utf8.count + 1 == PosterTextLimits.maximumContentsBytes)
    }

    @Test func aQuestionOverTheLimitIsRefusedNamingTheField() {
        #expect(throws: PosterTextError.contentsTooLong(bytes: 4097)) {
            try PosterTextLimits.check(contents: String(repeating: "a", count: 4097))
        }
        let error = PosterTextError.contentsTooLong(bytes: 300_000)
        #expect(error.description == "the question is longer than 4,096 bytes")
        #expect(error.kind == .invalidInput)
    }

    @Test func hashtagsAreCountedAsStoredWithoutRepeatsOrEmptyOnes() throws {
        // 40 as typed, but 32 once a repeated tag, an empty one and a lone # are dropped.
        let typed = (0..<32).map { "t\($0)" } + ["t1", "#t2", "＃t3", "", " ", "#", "t4", "t5"]
        try PosterTextLimits.check(hashtags: typed)
        #expect(throws: PosterTextError.tooManyHashtags(count: 5001)) {
            try PosterTextLimits.check(hashtags: (0..<5001).map { "t\($0)" })
        }
        #expect(PosterTextError.tooManyHashtags(count: 5001).description == "a poster has at most 32 hashtags")
    }

    @Test func aLongHashtagIsQuotedByItsStartOnlyAndSafely() {
        // 200 bytes once its # is dropped: accepted.
        #expect(throws: Never.self) { try PosterTextLimits.check(hashtags: ["#" + String(repeating: "x", count: 200)]) }
        // Normalising drops control characters; a bidirectional override is quoted as �.
        let long = "\u{1B}\u{202E}" + String(repeating: "猫", count: 100_000)
        #expect(throws: PosterTextError.hashtagTooLong("\u{FFFD}" + String(repeating: "猫", count: 19) + "…")) {
            try PosterTextLimits.check(hashtags: ["ok", long])
        }
        #expect(
            PosterTextError.hashtagTooLong("abc…").description == "the hashtag \"abc…\" is longer than 200 bytes")
        // One character of a million scalars is still quoted by twenty of them.
        let mark = "e" + String(repeating: "\u{301}", count: 1_000_000)
        #expect(throws: PosterTextError.hashtagTooLong("e" + String(repeating: "\u{301}", count: 19) + "…")) {
            try PosterTextLimits.check(hashtags: [mark])
        }
    }

    @Test func aQuotedExcerptCannotDriveATerminal() {
        #expect(SafeText.excerpt("\u{202E}abc\r", scalars: 20) == "\u{FFFD}abc␍")
        #expect(SafeText.excerpt("abcdef", scalars: 3) == "abc…")
        #expect(SafeText.excerpt("abc", scalars: 3) == "abc")
    }
}
