import Testing

@testable import TenbinKit

@Suite struct PostTextTests {
    private func parse(_ text: String) throws -> PostText {
        try PostText.parse(Array(text.utf8))
    }

    @Test func hashtagLinesGiveTagsAndOtherLinesGiveTrimmedContents() throws {
        let text = try parse("  猫と犬、どっちが好き？  \n#猫 #犬 ＃ペット\n")
        #expect(text.contents == "猫と犬、どっちが好き？")
        #expect(text.hashtags == ["#猫", "#犬", "＃ペット"])
    }

    @Test func severalContentLinesAreJoinedWithLineFeedsAndBlankLinesDropped() throws {
        let text = try parse("First line\n\n   \nSecond line\n#tag\nThird line")
        #expect(text.contents == "First line\nSecond line\nThird line")
        #expect(text.hashtags == ["#tag"])
    }

    @Test func aLineWithOneWordNotStartingWithHashIsContents() throws {
        let text = try parse("#1 or #2, which wins?\n# heading")
        #expect(text.contents == "#1 or #2, which wins?\n# heading")
        #expect(text.hashtags.isEmpty)
    }

    @Test func byteOrderMarkAndCRLFAreAccepted() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("ラーメン vs うどん\r\n#ラーメン\u{3000}#うどん\r\n".utf8)
        let text = try PostText.parse(bytes)
        #expect(text.contents == "ラーメン vs うどん")
        #expect(text.hashtags == ["#ラーメン", "#うどん"])
    }

    @Test func oldMacLineEndsSplitLines() throws {
        let text = try parse("question\r#a #b\r")
        #expect(text.contents == "question")
        #expect(text.hashtags == ["#a", "#b"])
    }

    @Test func anEmptyFileGivesNothing() throws {
        #expect(try parse("") == PostText(contents: "", hashtags: []))
        #expect(try PostText.parse([0xEF, 0xBB, 0xBF]) == PostText(contents: "", hashtags: []))
    }

    @Test func textThatIsNotUTF8IsRefused() {
        #expect(throws: PostText.Problem.self) { try PostText.parse([0x82, 0xA0, 0x0A]) }  // Shift_JIS "あ"
    }
}
