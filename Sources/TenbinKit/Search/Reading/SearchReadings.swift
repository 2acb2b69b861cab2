import Glibc

/// The readings a search key carries beside its text, so a query typed in kana finds text
/// written in kanji (ねこ finds 猫, とうきょう finds 東京タワー).
///
/// For each part of a poster's text (the contents and each hashtag) MeCab gives its words'
/// readings; a *stretch* is a run of words with nothing between them, each written as its
/// reading (katakana, normalised with ``SearchText/normalize(_:)`` to the hiragana the key
/// uses), or, for a word the dictionary gives no reading for and that holds no kanji (Latin,
/// digits, kana, symbols), as written. White space, and an unknown word in kanji, end a
/// stretch. Each stretch that is not already found in its part's text becomes a line of the
/// key after the text's lines (``SearchText/key(contents:hashtags:)``), so every backend
/// indexes and rechecks readings as it does text, a match never spans two stretches or a
/// stretch and the text, and a reading line holds no kanji, so a query with a kanji in it
/// never matches by reading (神 never finds 紙).
///
/// Text without kanji is not parsed at all: its readings would be the text again.
package enum SearchReadings {
    /// The analyser, loaded once per process on first use; or why there is none. Environment:
    /// `TENBIN_MECAB_DICTIONARY` names a dictionary folder instead of MeCab's configured one,
    /// `TENBIN_LIBMECAB` the library (Sources/CMeCab/mecab.c).
    private static let analyser: Result<MeCab, ReadingsUnavailable> = {
        let dictionary = getenv("TENBIN_MECAB_DICTIONARY").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        return Result { () throws(ReadingsUnavailable) in try MeCab(dictionary: dictionary) }
    }()

    /// Why keys made in this process carry no readings (nil when they do): the one-line notice
    /// a command that indexes or searches shows.
    public static var unavailable: ReadingsUnavailable? {
        if case .failure(let reason) = analyser { return reason }
        return nil
    }

    /// The reading lines of one part of a poster's text: `text` as posted, `surface` its
    /// normal form. Empty when MeCab is unavailable or the text holds no kanji.
    static func lines(of text: String, surface: String) -> [String] {
        guard text.unicodeScalars.contains(where: isKanji), case .success(let mecab) = analyser else { return [] }
        var lines: [String] = []
        // MeCab reads a line at a time; a line break ends a stretch as any white space does.
        for line in text.split(whereSeparator: \.isNewline) where line.unicodeScalars.contains(where: isKanji) {
            for stretch in stretches(of: mecab.tokens(of: String(line)))
            where !SearchQuery.contains(surface, stretch) && !lines.contains(stretch) {
                lines.append(stretch)
            }
        }
        return lines
    }

    /// The stretches of readings of parsed words (see the type's summary), normalised.
    static func stretches(of tokens: [MeCab.Token]) -> [String] {
        var stretches: [String] = []
        var current = ""
        func end() {
            if !current.isEmpty { stretches.append(current) }
            current = ""
        }
        for token in tokens {
            if token.followsSpace { end() }
            if let reading = token.reading {
                current += folded(reading)
                continue
            }
            let written = SearchText.normalize(token.surface)
            if written.unicodeScalars.contains(where: isKanji) {
                // An unknown word in kanji: its reading cannot be guessed, and writing it as is
                // would let a kanji query match a reading line.
                end()
            } else {
                current += written
            }
        }
        end()
        // A reading may hold a kanji of its own (a dictionary entry whose reading field is
        // the word again): such a stretch is dropped, so reading lines never hold kanji.
        return stretches.filter { !$0.unicodeScalars.contains(where: isKanji) }
    }

    /// A reading normalised as ``SearchText/normalize(_:)`` would: the dictionary's readings
    /// are full-width katakana and ー, which fold to hiragana by a shift alone (a reading of
    /// anything else goes the whole way).
    static func folded(_ reading: String) -> String {
        var output = String.UnicodeScalarView()
        for scalar in reading.unicodeScalars {
            switch scalar.value {
            case 0x30A1...0x30F6, 0x30FD, 0x30FE:
                // Katakana ァ…ヶ and ヽヾ sit exactly 0x60 above their hiragana (SearchText.fold).
                output.append(Unicode.Scalar(scalar.value - 0x60)!)  // 0x3041…0x309E are all valid scalars
            case 0x3041...0x3096, 0x30FC:
                output.append(scalar)
            default:
                return SearchText.normalize(reading)
            }
        }
        return String(output)
    }

    /// Whether a scalar is a CJK ideograph (or the marks 々〆〇 written with them): what
    /// makes text worth reading, and what a reading line never holds.
    static func isKanji(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3005...0x3007, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x3FFFF: true
        default: false
        }
    }
}
