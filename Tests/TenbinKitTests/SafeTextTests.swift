import Testing

@testable import TenbinKit

@Suite struct SafeTextTests {
    @Test func plainTextIsKeptAsWritten() {
        for text in ["", "猫と犬、どっちが好き？", "café ☕️ 👩‍👩‍👧", "#1 or #2?", "ｷﾉｺ　東京"] {
            #expect(SafeText.terminal(text) == text)
            #expect(SafeText.terminal(text, lines: .many) == text)
        }
    }

    @Test func escapeSequencesAreShownAsControlPictures() {
        let hostile = "\u{1B}]0;pwned\u{07}\u{1B}[2Jhi\u{7F}\u{00}"
        #expect(SafeText.terminal(hostile) == "␛]0;pwned␇␛[2Jhi␡␀")
    }

    @Test func everyC0AndC1ControlIsChanged() {
        for value in UInt32(0)...0x9F where value < 0x20 || value >= 0x7F {
            let scalar = Unicode.Scalar(value)!
            let shown = SafeText.terminal("a\(Character(scalar))b")
            #expect(!shown.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "U+\(value)")
        }
    }

    @Test func bidirectionalOverridesAndIsolatesAreShownAsReplacementCharacters() {
        for value in Array(UInt32(0x202A)...0x202E) + Array(UInt32(0x2066)...0x2069) {
            let text = "abc\(Character(Unicode.Scalar(value)!))def"
            #expect(SafeText.terminal(text) == "abc\u{FFFD}def")
        }
        // Marks that only hint direction are ordinary text in Arabic and Hebrew.
        #expect(SafeText.terminal("a\u{200F}b") == "a\u{200F}b")
    }

    @Test func lineBreaksBecomeSpacesOnOneLineAndLineFeedsOnMany() {
        let text = "one\ntwo\r\nthree\u{85}four\u{2028}five\tsix"
        #expect(SafeText.terminal(text) == "one two three four five six")
        #expect(SafeText.terminal(text, lines: .many) == "one\ntwo\nthree\nfour\nfive six")
    }

    @Test func aLoneCarriageReturnCannotOverwriteTheLine() {
        #expect(SafeText.terminal("safe\rEVIL", lines: .many) == "safe␍EVIL")
        #expect(SafeText.terminal("end\r") == "end␍")
    }

    @Test func htmlEscapesMarkupAndAppliesTheSameRule() {
        let escaped = SafeText.html(#"<script>alert("x" & 'y')</script>"#)
        #expect(escaped == "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;")
        #expect(SafeText.html("a\u{202E}b\u{1B}c\r\nd") == "a\u{FFFD}b␛c\nd")
    }
}
