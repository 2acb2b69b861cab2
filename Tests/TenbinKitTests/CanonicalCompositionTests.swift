import Foundation
import Testing

@testable import TenbinKit

/// tenbin's own NFC gives exactly what the standard library's NFC gave (the underscored
/// `_nfcCodeUnits` that search used before, kept here only as the reference), for every
/// character, every canonical decomposition, and runs of characters with marks in any order.
/// (ICU's NFC, behind Foundation, differs from both for a mark before U+0F73-like characters,
/// whose decomposition begins with a mark; for everything else all three agree.) Should a
/// toolchain drop `_nfcCodeUnits`, Python's `unicodedata.normalize("NFC", …)` is the next
/// reference.
@Suite struct CanonicalCompositionTests {
    func nfc(_ text: String) -> String {
        String(CanonicalComposition.compose(text.unicodeScalars))
    }

    func reference(_ text: String) -> String {
        String(decoding: text._nfcCodeUnits, as: UTF8.self)
    }

    /// Characters assigned in the Unicode version the tables were made from (see
    /// CanonicalMappings.swift); the standard library may know newer ones.
    static let characters: [Unicode.Scalar] = (0..<0x110000).compactMap { value -> Unicode.Scalar? in
        guard let scalar = Unicode.Scalar(UInt32(value)), let age = scalar.properties.age, age.major <= 14 else { return nil }
        return scalar
    }

    @Test func everyCharacterOnItsOwnComposesAsTheStandardLibraryComposedIt() {
        var mismatches: [String] = []
        for scalar in Self.characters {
            let text = String(scalar)
            // Compare scalars: String's == ignores the very differences NFC is about.
            if Array(nfc(text).unicodeScalars) != Array(reference(text).unicodeScalars) {
                mismatches.append(String(scalar.value, radix: 16))
            }
        }
        #expect(mismatches.isEmpty, "U+\(mismatches.prefix(20).joined(separator: ", U+"))")
    }

    @Test func everyCharacterDecomposedComposesBack() {
        var mismatches: [String] = []
        for scalar in Self.characters {
            let decomposed = String(scalar).decomposedStringWithCanonicalMapping
            if Array(nfc(decomposed).unicodeScalars) != Array(reference(decomposed).unicodeScalars) {
                mismatches.append(String(scalar.value, radix: 16))
            }
        }
        #expect(mismatches.isEmpty, "U+\(mismatches.prefix(20).joined(separator: ", U+"))")
    }

    @Test func randomRunsOfLettersMarksAndHangulComposeAsTheStandardLibraryComposedThem() {
        let seed: UInt64 = 1015
        var random = SplitMix64(seed: seed)
        let pieces: [UInt32] = [
            0x41, 0x61, 0x45, 0x6F, 0x55, 0x300, 0x301, 0x302, 0x303, 0x308, 0x30A, 0x323, 0x327, 0x328, 0x31B, 0x345, 0x3B1,
            0x3C9, 0x1F00, 0x304B, 0x306F, 0x30CF, 0x3099, 0x309A, 0xFF76, 0xFF9E, 0x1100, 0x1161, 0x11A8, 0xAC00, 0xAC01,
            0x0B47, 0x0B3E, 0x0B57, 0x0DD9, 0x0DCF, 0x0DDF, 0x05D0, 0x05B7, 0x05BC, 0x0344, 0x0F73, 0x2126, 0x212B,
        ]
        for round in 0..<5_000 {
            var text = ""
            for _ in 0..<random.next(upTo: 8) { text.unicodeScalars.append(Unicode.Scalar(pieces[random.next(upTo: pieces.count)])!) }
            let ours = Array(nfc(text).unicodeScalars)
            let theirs = Array(reference(text).unicodeScalars)
            #expect(ours == theirs, "round \(round) (seed \(seed)): \(text.unicodeScalars.map { String($0.value, radix: 16) })")
            if ours != theirs { break }
        }
    }

    @Test func theSearchFormsStayAsTheyWere() {
        #expect(SearchText.normalize("ｶﾞｷﾞｸﾞ") == "がぎぐ")
        #expect(SearchText.normalize("ﾊﾟﾋﾟ") == "ぱぴ")
        #expect(SearchText.normalize("Cafe\u{301} CAFÉ") == "café café")
        #expect(SearchText.normalize("한국어 한국어") == "한국어 한국어")
        #expect(SearchText.normalize("ｷﾉｺ ＡＢＣ １００") == "きのこ abc 100")
    }
}
