import Testing

@testable import TenbinKit

/// The index's vocabulary on its own, without a database: what a key's document holds, and the
/// property everything rests on — the index never misses a key the recheck accepts.
@Suite struct SearchGramsTests {
    /// The scalars a token stands for (four base-36 digits each).
    private func decode(_ token: Substring) -> String {
        var text = ""
        var digits = token[...]
        while digits.count >= 4 {
            let value = UInt32(digits.prefix(4), radix: 36)!  // tokens are made of base-36 digits only
            text += String(Unicode.Scalar(value)!)  // tokens hold valid scalars only
            digits = digits.dropFirst(4)
        }
        return text
    }

    private func pieces(_ key: String) -> [String] {
        SearchGrams.document(forKey: key).split(separator: " ").map(decode)
    }

    /// Whether a document holds every term: an exact token, or for a prefix term some token
    /// starting with it.
    private func answers(_ document: String, _ terms: [IndexTerm]) -> Bool {
        let tokens = document.split(separator: " ")
        return terms.allSatisfy { term in
            term.isPrefix ? tokens.contains { $0.hasPrefix(term.token) } : tokens.contains(Substring(term.token))
        }
    }

    private func terms(_ query: String) -> [IndexTerm] {
        SearchGrams.terms(for: SearchQuery(query))
    }

    @Test func aKeyIsIndexedAsItsDistinctCharactersAndPairsWithinEachPart() {
        #expect(pieces("東京タワー") == ["東", "京", "タ", "ワ", "ー", "東京", "京タ", "タワ", "ワー"])
        #expect(pieces("ねこねこ\n猫") == ["ね", "こ", "ねこ", "こね", "猫"])
        #expect(pieces("a") == ["a"])
        #expect(pieces("") == [])
    }

    @Test func wordsBecomeOneExactTokenOrTheirPairs() {
        #expect(terms("猫").map(\.token).map { decode(Substring($0)) } == ["猫"])
        #expect(terms("東京").map(\.token).map { decode(Substring($0)) } == ["東京"])
        // Query words are normalised (katakana as hiragana), and each piece is looked up once.
        #expect(terms("東京タワー").map(\.token).map { decode(Substring($0)) } == ["東京", "京た", "たわ", "わー"])
        #expect(Set(terms("猫 猫 ねこねこ").map(\.token).map { decode(Substring($0)) }) == ["猫", "ねこ", "こね"])
        #expect(terms("猫 猫 ねこねこ").count == 3)
        #expect(terms("東京タワー 猫").allSatisfy { !$0.isPrefix })
        // At most eight pairs per word, the first and last among them.
        let long = terms("あいうえおかきくけこさしすせそ")
        #expect(long.count == SearchGrams.maximumPiecesPerWord)
        #expect(decode(Substring(long.first!.token)) == "あい" && decode(Substring(long.last!.token)) == "せそ")
        #expect(terms("　 ").isEmpty)
    }

    @Test func aOneCharacterWordIsFoundAnywhereEvenInAOneCharacterHashtag() {
        let document = SearchGrams.document(forKey: SearchText.key(contents: "好きな動物は猫", hashtags: ["犬"]))
        for word in ["猫", "犬", "好", "は", "動物"] {
            #expect(answers(document, terms(word)), "\(word)")
        }
        #expect(!answers(document, terms("鳥")))
        #expect(!answers(document, terms("猫犬")))
    }

    @Test func theIndexNeverMissesAKeyTheRecheckAccepts() {
        let seed: UInt64 = 13
        var random = SplitMix64(seed: seed)
        let alphabet = Array("猫ねこネコｷﾉｺ東京タワーabcABＡＢ1１ がｶﾞ　#ー")
        func text(_ length: Int) -> String {
            String((0..<length).map { _ in alphabet[random.next(upTo: alphabet.count)] })
        }
        var checked = 0
        for _ in 0..<3000 {
            let key = SearchText.key(contents: text(random.next(upTo: 12)), hashtags: (0..<random.next(upTo: 3)).map { _ in text(3) })
            let document = SearchGrams.document(forKey: key)
            // Query words cut from the key itself, so most of them match.
            let scalars = Array(key.unicodeScalars)
            let words = (0..<(1 + random.next(upTo: 2))).map { _ -> String in
                guard !scalars.isEmpty else { return text(2) }
                let start = random.next(upTo: scalars.count)
                let end = min(scalars.count, start + 1 + random.next(upTo: 5))
                return String(String.UnicodeScalarView(scalars[start..<end]))
            }
            let query = SearchQuery(words.joined(separator: " "))
            let expected = SearchGrams.terms(for: query)
            guard !expected.isEmpty, query.matches(key: key) else { continue }
            checked += 1
            #expect(answers(document, expected), "seed \(seed): key \(key.debugDescription), query \(words)")
        }
        #expect(checked > 1000)
    }

    /// The rule documents were made by before the single-pass version: parts split by
    /// `Character`, pieces remembered in a `Set` of their packed numbers (21 bits a scalar, so
    /// a NUL followed by x counts as x, as it always did; normalised keys hold no NUL). A stored index row can only be removed with
    /// exactly the tokens it was made with, so the two must agree on every key, stored ones
    /// included (keys are normalised, but this checks raw text too: CR, LF, CR LF, NUL,
    /// combining marks, emoji, empty parts).
    private func documentByTheFirstRule(_ key: String) -> String {
        var seen: Set<UInt64> = []
        var tokens: [String] = []
        for part in key.split(separator: "\n", omittingEmptySubsequences: true) {
            let scalars = part.unicodeScalars.map(\.value)
            for length in 1...2 where scalars.count >= length {
                for start in 0...(scalars.count - length) {
                    let piece = Array(scalars[start..<(start + length)])
                    guard seen.insert(piece.reduce(0) { ($0 << 21) | UInt64($1) }).inserted else { continue }
                    tokens.append(
                        piece.map { value in
                            let digits = String(value, radix: 36)
                            return String(repeating: "0", count: 4 - digits.count) + digits
                        }.joined())
                }
            }
        }
        return tokens.joined(separator: " ")
    }

    @Test func aDocumentIsTheSameAsByTheFirstRuleForAnyText() {
        var random = SplitMix64(seed: 7)
        let alphabet: [Unicode.Scalar] = ["a", "B", "\n", "\r", "\0", " ", "　", "猫", "ね", "\u{301}", "\u{1F600}", "\u{10FFFF}", "é", "ｶ"]
        for _ in 0..<5000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<random.next(upTo: 14) { text.append(alphabet[random.next(upTo: alphabet.count)]) }
            let key = String(text)
            #expect(SearchGrams.document(forKey: key) == documentByTheFirstRule(key), "\(key.debugDescription)")
        }
        for key in ["", "\n", "\r\n", "a\r\nb", "a\n\nb", "\r\n\n", "x\r", "\n\r", "猫\n犬\r\n鳥"] {
            #expect(SearchGrams.document(forKey: key) == documentByTheFirstRule(key), "\(key.debugDescription)")
        }
    }
}
