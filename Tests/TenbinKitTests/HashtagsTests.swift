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

    /// The shortcuts (trimming decided from the ends, the control filter skipped without a
    /// control byte) give what the full rule gives, on tags built from the awkward cases:
    /// spaces of both widths, combining marks after a space, controls, C1 controls, `#`.
    @Test func theShortcutsAgreeWithTheFullRule() {
        let alphabet: [String] = [
            "a", "Z", "#", "＃", " ", "\u{3000}", "\t", "\n", "か", "カ", "猫", "ａ", "\u{3099}", "\u{301}", "\u{1B}", "\u{85}",
            "\u{A0}", "é", "\u{600}", "👍", "\u{200D}", "\r\n",
        ]
        func slow(_ raw: String) -> String {
            var tag = Substring(raw).trimmingWhitespace()
            if let first = tag.first, first == "#" || first == "＃" { tag = tag.dropFirst().trimmingWhitespace() }
            return String(String.UnicodeScalarView(tag.unicodeScalars.filter { $0.properties.generalCategory != .control }))
        }
        var random = SplitMix64(seed: 13)
        for _ in 0..<20_000 {
            let tag = (0..<(1 + random.next(upTo: 5))).map { _ in alphabet[random.next(upTo: alphabet.count)] }.joined()
            if Substring(tag).isTrimmed {
                #expect(Substring(tag).trimmingWhitespace() == Substring(tag), "\(tag.unicodeScalars.map(\.value))")
            }
            let expected = slow(tag)
            #expect(Hashtags.normalize([tag]) == (expected.isEmpty ? [] : [expected]), "\(tag.unicodeScalars.map(\.value))")
        }
    }
}
