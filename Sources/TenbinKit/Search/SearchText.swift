/// The normal form search compares text in: width, Latin case and kana folded away.
///
/// `normalize` applies, in order: Unicode NFKC (ＡＢＣ → ABC, １００ → 100, ｷﾉｺ → キノコ, and
/// half-width kana with their voiced marks compose: ｶﾞ → ガ), lowercasing (ABC → abc, Ä → ä),
/// and katakana to hiragana (キノコ → きのこ, ヴ → ゔ). Only search keys and query words are
/// normalised; a poster's contents and hashtags are stored exactly as posted.
package enum SearchText {
    /// The normal form of `text`. NUL characters are dropped: the index's pieces use NUL as
    /// a separator (see `SearchGrams`), and nobody searches for one.
    package static func normalize(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 && $0 != 0 }) { return asciiLowercased(text) }
        var decomposed = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            // CJK unified ideographs (most of a Japanese text) have no decomposition: skip the
            // table lookup.
            if (0x4E00...0x9FFF).contains(scalar.value) {
                decomposed.append(scalar)
            } else if scalar.value >= 0xA0, let mapping = ScalarMappings.compatibility.mapping(of: scalar.value) {
                for value in mapping {
                    // The table holds only valid scalar values (generated from Unicode data).
                    decomposed.append(Unicode.Scalar(value)!)
                }
            } else {
                decomposed.append(scalar)
            }
        }
        // NFC of the compatibility-decomposed text is NFKC.
        var folded = String.UnicodeScalarView()
        for scalar in CanonicalComposition.compose(decomposed) {
            fold(scalar, into: &folded)
        }
        return String(folded)
    }

    /// The separator between a key's parts; white space, so no query word ever contains it.
    static let separator: Character = "\n"

    /// The stored search key of a poster: its normalised contents and hashtags, one per line,
    /// then the reading lines of those in kanji (``SearchReadings``), when MeCab is there.
    /// A query word matches when it is a substring of the key, and since words never contain
    /// the separator, that means a substring of the contents, of one hashtag, or of one
    /// stretch of their reading.
    package static func key(contents: String, hashtags: [String]) -> String {
        let parts = [contents] + hashtags
        let surfaces = parts.map(normalize)
        var lines = surfaces
        for (part, surface) in zip(parts, surfaces) {
            for reading in SearchReadings.lines(of: part, surface: surface) where !lines.contains(reading) {
                lines.append(reading)
            }
        }
        return lines.joined(separator: String(separator))
    }

    /// The key of a poster's text as written, without reading lines: what
    /// ``key(contents:hashtags:)`` gives where MeCab is missing.
    package static func writtenKey(contents: String, hashtags: [String]) -> String {
        ([contents] + hashtags).map(normalize).joined(separator: String(separator))
    }

    /// Whether `stored` is a right key for this text: the key with readings, or the key as
    /// written (a store indexed where MeCab was missing, or not yet given readings by
    /// migration 14, is not damaged; its posters are found as written until `check --repair`).
    package static func isKey(_ stored: String, of contents: String, hashtags: [String]) -> Bool {
        stored == key(contents: contents, hashtags: hashtags) || stored == writtenKey(contents: contents, hashtags: hashtags)
    }

    private static func asciiLowercased(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return text }
        return String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    private static func fold(_ scalar: Unicode.Scalar, into output: inout String.UnicodeScalarView) {
        let value = scalar.value
        switch value {
        case 0:
            return
        case 0x41...0x5A:
            output.append(Unicode.Scalar(UInt8(value + 0x20)))
        case 0x30A1...0x30F6, 0x30FD, 0x30FE:
            // Katakana ァ…ヶ and the iteration marks ヽヾ sit exactly 0x60 above their hiragana.
            output.append(Unicode.Scalar(value - 0x60)!)  // 0x3041…0x309E are all valid scalars
        case 0x3000...0x9FFF:
            // CJK symbols, kana and ideographs: nothing here changes when lowercased (a test
            // checks every scalar), and looking the property up is a good part of the cost.
            output.append(scalar)
        case 0x80...:
            if scalar.properties.changesWhenLowercased {
                output.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
            } else {
                output.append(scalar)
            }
        default:
            output.append(scalar)
        }
    }
}

/// A generated table from characters to sequences of characters, searched where it lies:
/// `keys` in increasing order, and the mapping of `keys[i]` at `values[starts[i]..<starts[i + 1]]`.
/// A character below U+10000 whose bit in `keysInBMP` is clear has none, without a search: most
/// of a text's characters. Nothing is built when a process starts (dictionaries built from the
/// tables cost a search command a few tenths of a millisecond and 70 page faults, before it had
/// read a page).
struct ScalarMappings: Sendable {
    let keys: [UInt32]
    let starts: [UInt32]
    let values: [UInt32]
    let keysInBMP: [UInt64]

    static let compatibility = ScalarMappings(
        keys: CompatibilityMappings.keys, starts: CompatibilityMappings.starts, values: CompatibilityMappings.values,
        keysInBMP: CompatibilityMappings.keysInBMP)
    static let canonical = ScalarMappings(
        keys: CanonicalMappings.decompositionKeys, starts: CanonicalMappings.decompositionStarts,
        values: CanonicalMappings.decompositionValues, keysInBMP: CanonicalMappings.decompositionKeysInBMP)

    /// The mapping of `value`, or nil when it has none.
    func mapping(of value: UInt32) -> ArraySlice<UInt32>? {
        if value < 0x10000 && !Self.contains(value, inBMP: keysInBMP) { return nil }
        guard let index = Self.index(of: value, in: keys) else { return nil }
        return values[Int(starts[index])..<Int(starts[index + 1])]
    }

    /// Whether the bit of `value` (below U+10000) is set in a generated bitset of the Basic
    /// Multilingual Plane: bit `value & 63` of word `value >> 6`.
    static func contains(_ value: UInt32, inBMP bits: [UInt64]) -> Bool {
        bits[Int(value >> 6)] & (1 << (value & 63)) != 0
    }

    /// Where `value` is in `sorted`, or nil when it is not there.
    static func index<Key: BinaryInteger>(of value: Key, in sorted: [Key]) -> Int? {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count && sorted[low] == value ? low : nil
    }
}
