/// The index's vocabulary: every two-character piece of a search key, and each part's last
/// character paired with an end mark, each written as a plain ASCII token for an FTS5 table.
///
/// SQLite's trigram tokenizer finds nothing for words under three characters, and on this
/// SQLite (3.40.1) LIKE against it can return wrong rows or crash. So the index is an FTS5
/// table with the simple `ascii` tokenizer over tokens made here: each Unicode scalar is four
/// base-36 digits, a piece is its two scalars' digits in a row. Every occurrence of a
/// character in a key starts a piece (the next character, or the end mark), so:
/// - a one-character word is a prefix query (`"abcd"*`: every piece starting with it);
/// - a two-character word is one exact token;
/// - a longer word is its two-character pieces, all looked up with AND.
/// Every hit is rechecked with a plain substring test on the stored key, so the index only
/// has to never miss.
///
/// Why pairs only: three-character pieces made a key's vocabulary three times larger and
/// almost every piece distinct, and FTS5's cost grows with the number of distinct terms it
/// merges: on realistic Japanese text, indexing one-, two- and three-character pieces cost
/// about five times as much per poster as pairs alone (see docs/benchmarks.md). A separate
/// one-character token is not needed either: the prefix query answers that word.
enum SearchGrams {
    /// At most this many pieces are looked up per word; more add little to the AND's
    /// selectivity and the recheck keeps the result exact.
    static let maximumPiecesPerWord = 8

    /// The end mark paired with each part's last character: one past the last Unicode scalar,
    /// so it never stands for a character. (Four base-36 digits reach 1,679,615.)
    static let endMark: UInt32 = 0x11_0000

    /// The FTS5 document for a search key: its distinct pieces, space-separated. Pieces never
    /// span the separator between contents and hashtags (no query word contains it).
    static func document(forKey key: String) -> String {
        var seen: Set<UInt64> = []
        var tokens: [UInt8] = []
        tokens.reserveCapacity(key.utf8.count * 4)
        var scalars: [UInt32] = []
        for segment in key.split(separator: SearchText.separator, omittingEmptySubsequences: true) {
            scalars.removeAll(keepingCapacity: true)
            for scalar in segment.unicodeScalars { scalars.append(scalar.value) }
            scalars.append(endMark)
            for start in 0..<(scalars.count - 1) {
                let piece = scalars[start..<(start + 2)]
                guard seen.insert(pack(piece)).inserted else { continue }
                if !tokens.isEmpty { tokens.append(0x20) }
                append(piece, to: &tokens)
            }
        }
        return String(decoding: tokens, as: UTF8.self)
    }

    /// The FTS5 MATCH expression finding every key that might contain all of `query`'s words
    /// (a superset: hits are rechecked), or nil for an empty query.
    static func matchExpression(for query: SearchQuery) -> String? {
        var seen: Set<UInt64> = []
        var terms: [String] = []
        for word in query.words {
            let scalars = word.unicodeScalars.map(\.value)
            var pieces: [ArraySlice<UInt32>]
            if scalars.count <= 2 {
                pieces = [scalars[...]]
            } else {
                pieces = (0...(scalars.count - 2)).map { scalars[$0..<($0 + 2)] }
                var distinct: Set<UInt64> = []
                pieces = pieces.filter { distinct.insert(pack($0)).inserted }
                if pieces.count > maximumPiecesPerWord {
                    // Evenly spread, first and last included, so the whole word is covered.
                    let step = Double(pieces.count - 1) / Double(maximumPiecesPerWord - 1)
                    pieces = (0..<maximumPiecesPerWord).map { pieces[Int((Double($0) * step).rounded())] }
                }
            }
            for piece in pieces where seen.insert(pack(piece)).inserted {
                var token: [UInt8] = [0x22]
                append(piece, to: &token)
                token.append(0x22)
                // One character: every piece that starts with it.
                if piece.count == 1 { token.append(0x2A) }
                terms.append(String(decoding: token, as: UTF8.self))
            }
        }
        return terms.isEmpty ? nil : terms.joined(separator: " ")
    }

    /// A piece of one or two scalars (or the end mark) as one number, 21 bits each. Pieces of
    /// different lengths never collide because normalised text has no NUL (scalar 0): a
    /// piece's first scalar is non-zero, so its length decides which range it falls in.
    private static func pack(_ piece: ArraySlice<UInt32>) -> UInt64 {
        piece.reduce(0) { ($0 << 21) | UInt64($1) }
    }

    private static let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)

    /// Appends each scalar as four base-36 digits (36⁴ = 1,679,616 > the end mark).
    private static func append(_ piece: ArraySlice<UInt32>, to tokens: inout [UInt8]) {
        for value in piece {
            var remaining = Int(value)
            var code: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
            code.3 = digits[remaining % 36]
            remaining /= 36
            code.2 = digits[remaining % 36]
            remaining /= 36
            code.1 = digits[remaining % 36]
            remaining /= 36
            code.0 = digits[remaining]
            tokens.append(code.0)
            tokens.append(code.1)
            tokens.append(code.2)
            tokens.append(code.3)
        }
    }
}
