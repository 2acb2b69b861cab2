/// Unicode Normalization Form C (canonical composition), as UAX #15 defines it, on public API
/// only: the full canonical decomposition, the canonical ordering of combining marks by their
/// class (`Unicode.Scalar.Properties.canonicalCombiningClass`), then composition of each
/// unblocked pair that has a primary composite. The tables come from
/// ``CanonicalMappings``; Hangul syllables are handled by arithmetic.
enum CanonicalComposition {
    /// The NFC form of `scalars`.
    static func compose(_ scalars: String.UnicodeScalarView) -> String.UnicodeScalarView {
        // Most text (kana and kanji, precomposed Latin, Hangul syllables) is NFC already.
        guard scalars.contains(where: { $0.value >= 0x300 && CanonicalTable.isUnstable($0.value) }) else { return scalars }
        var text = decompose(scalars)
        composePairs(&text)
        var result = String.UnicodeScalarView()
        for value in text {
            // Every value is a scalar: it came from one, from the tables (generated from
            // Unicode data) or from Hangul arithmetic within the syllable blocks.
            result.append(Unicode.Scalar(value)!)
        }
        return result
    }

    // Hangul: syllable = SBase + (L - LBase) * NCount + (V - VBase) * TCount + (T - TBase).
    private static let sBase: UInt32 = 0xAC00
    private static let lBase: UInt32 = 0x1100
    private static let vBase: UInt32 = 0x1161
    private static let tBase: UInt32 = 0x11A7
    private static let lCount: UInt32 = 19
    private static let vCount: UInt32 = 21
    private static let tCount: UInt32 = 28
    private static let nCount = vCount * tCount
    private static let sCount = lCount * nCount

    /// The full canonical decomposition with each run of combining marks sorted by class,
    /// keeping the order of equal classes (NFD).
    ///
    /// As ICU and the standard library do, marks are never moved before the decomposition of
    /// a character whose own class is 0, even when that decomposition begins with a mark
    /// (U+0F73 TIBETAN VOWEL SIGN II is U+0F71 U+0F72): the text is normalised segment by
    /// segment, each segment beginning at such a character.
    private static func decompose(_ scalars: String.UnicodeScalarView) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(scalars.count + 8)
        var segmentStart = 0
        for scalar in scalars {
            let value = scalar.value
            if value >= sBase && value < sBase + sCount {
                let index = value - sBase
                out.append(lBase + index / nCount)
                out.append(vBase + (index % nCount) / tCount)
                if index % tCount != 0 { out.append(tBase + index % tCount) }
                segmentStart = out.count - 1
                continue
            }
            if combiningClass(value) == 0 { segmentStart = out.count }
            if value >= 0xC0, let mapping = CanonicalTable.decomposition(of: value) {
                for part in mapping { insert(part, into: &out, after: segmentStart) }
            } else {
                insert(value, into: &out, after: segmentStart)
            }
        }
        return out
    }

    /// Appends `value`; a mark moves back past the marks of a higher class before it, never
    /// before index `segmentStart`.
    private static func insert(_ value: UInt32, into out: inout [UInt32], after segmentStart: Int) {
        let valueClass = combiningClass(value)
        var place = out.count
        out.append(value)
        guard valueClass != 0 else { return }
        while place > segmentStart && combiningClass(out[place - 1]) > valueClass {
            out[place] = out[place - 1]
            place -= 1
        }
        out[place] = value
    }

    private static func combiningClass(_ value: UInt32) -> UInt8 {
        // Values here are scalars (see `compose`).
        value < 0x300 ? 0 : Unicode.Scalar(value)!.properties.canonicalCombiningClass.rawValue
    }

    /// Composes each character with the last starter before it when nothing between them
    /// blocks it (UAX #15's canonical composition algorithm), in place.
    private static func composePairs(_ text: inout [UInt32]) {
        guard !text.isEmpty else { return }
        var starter = 0
        // A text that begins with a mark has no starter to compose with until the next one.
        var lastClass: Int = combiningClass(text[0]) == 0 ? 0 : 256
        var written = 1
        for read in 1..<text.count {
            let value = text[read]
            let valueClass = Int(combiningClass(value))
            if lastClass < valueClass || lastClass == 0, let composite = composite(text[starter], value) {
                text[starter] = composite
                continue
            }
            if valueClass == 0 { starter = written }
            lastClass = valueClass
            text[written] = value
            written += 1
        }
        text.removeLast(text.count - written)
    }

    private static func composite(_ first: UInt32, _ second: UInt32) -> UInt32? {
        if first >= lBase && first < lBase + lCount && second >= vBase && second < vBase + vCount {
            return sBase + ((first - lBase) * vCount + (second - vBase)) * tCount
        }
        if first >= sBase && first < sBase + sCount && (first - sBase) % tCount == 0 && second > tBase && second < tBase + tCount {
            return first + (second - tBase)
        }
        return CanonicalTable.composite(first, second)
    }
}

/// ``CanonicalMappings``, searched where they lie.
enum CanonicalTable {
    /// Whether `value` can make text not NFC (see `CanonicalMappings.unstableBMP`).
    static func isUnstable(_ value: UInt32) -> Bool {
        value < 0x10000
            ? ScalarMappings.contains(value, inBMP: CanonicalMappings.unstableBMP)
            : ScalarMappings.index(of: value, in: CanonicalMappings.unstableAstral) != nil
    }

    /// The full canonical decomposition of `value`, or nil when it has none.
    static func decomposition(of value: UInt32) -> ArraySlice<UInt32>? {
        ScalarMappings.canonical.mapping(of: value)
    }

    /// The primary composite of `first` then `second`, or nil when they do not compose.
    static func composite(_ first: UInt32, _ second: UInt32) -> UInt32? {
        ScalarMappings.index(of: UInt64(first) << 21 | UInt64(second), in: CanonicalMappings.compositionPairs).map {
            CanonicalMappings.composites[$0]
        }
    }
}
