import Testing

@testable import TenbinKit

/// The index's vocabulary on its own, without a database: what a key's document holds, and the
/// property everything rests on — the index never misses a key the recheck accepts.
@Suite struct SearchGramsTests {
    /// The scalars a token stands for (four base-36 digits each; the end mark as `$`).
    private func decode(_ token: Substring) -> String {
        var text = ""
        var digits = token[...]
        while digits.count >= 4 {
            let value = UInt32(digits.prefix(4), radix: 36)!  // tokens are made of base-36 digits only
            text += value == SearchGrams.endMark ? "$" : String(Unicode.Scalar(value)!)
            digits = digits.dropFirst(4)
        }
        return text
    }

    private func pieces(_ key: String) -> [String] {
        SearchGrams.document(forKey: key).split(separator: " ").map(decode)
    }

    /// Whether a document can answer every term of an expression: an exact token, or for a
    /// prefix term (`"…"*`) some token starting with it.
    private func answers(_ document: String, _ expression: String) -> Bool {
        let tokens = document.split(separator: " ")
        return expression.split(separator: " ").allSatisfy { term in
            term.hasSuffix("*")
                ? tokens.contains { $0.hasPrefix(term.dropFirst().dropLast(2)) } : tokens.contains(term.dropFirst().dropLast())
        }
    }

    @Test func aKeyIsIndexedAsItsDistinctPairsAndEachPartsLastCharacterWithTheEndMark() {
        #expect(pieces("東京タワー") == ["東京", "京タ", "タワ", "ワー", "ー$"])
        #expect(pieces("ねこねこ\n猫") == ["ねこ", "こね", "こ$", "猫$"])
        #expect(pieces("a") == ["a$"])
        #expect(pieces("") == [])
    }

    @Test func wordsBecomeAPrefixTermAPairOrTheirPairs() {
        let cat = SearchGrams.matchExpression(for: SearchQuery("猫"))!
        #expect(cat.hasSuffix("\"*") && cat.count == 7)
        #expect(SearchGrams.matchExpression(for: SearchQuery("東京"))!.split(separator: " ").count == 1)
        #expect(SearchGrams.matchExpression(for: SearchQuery("東京タワー"))!.split(separator: " ").count == 4)
        // At most eight pairs per word, the first and last among them.
        let long = SearchGrams.matchExpression(for: SearchQuery("あいうえおかきくけこさしすせそ"))!.split(separator: " ")
        #expect(long.count == SearchGrams.maximumPiecesPerWord)
        #expect(decode(long.first!.dropFirst().dropLast()) == "あい" && decode(long.last!.dropFirst().dropLast()) == "せそ")
        #expect(SearchGrams.matchExpression(for: SearchQuery("　 ")) == nil)
    }

    @Test func aOneCharacterWordIsFoundAtTheEndOfAPartAndInAOneCharacterHashtag() {
        let document = SearchGrams.document(forKey: SearchText.key(contents: "好きな動物は猫", hashtags: ["犬"]))
        for word in ["猫", "犬", "好", "は"] {
            #expect(answers(document, SearchGrams.matchExpression(for: SearchQuery(word))!), "\(word)")
        }
        #expect(!answers(document, SearchGrams.matchExpression(for: SearchQuery("鳥"))!))
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
            guard let expression = SearchGrams.matchExpression(for: query), query.matches(key: key) else { continue }
            checked += 1
            #expect(answers(document, expression), "seed \(seed): key \(key.debugDescription), query \(words)")
        }
        #expect(checked > 1000)
    }
}
