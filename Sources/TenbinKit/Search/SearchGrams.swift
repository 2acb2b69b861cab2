/// The index's vocabulary: every one- and two-character piece of a search key, packed as a
/// number (``pieces(forKey:)``: SQLite's index of its own stores those) or written as a plain
/// ASCII token (``token(ofPiece:)``: PostgreSQL's GIN index stores those).
///
/// SQLite's trigram tokenizer finds nothing for words under three characters, and on this
/// SQLite (3.40.1) LIKE against it can return wrong rows or crash; so the pieces are made
/// here. As a token each Unicode scalar is four base-36 digits, a piece its scalars' digits in
/// a row (4 or 8 characters, so the two kinds never collide). A word of one or two characters
/// is then one exact piece and a longer word is its two-character pieces, all looked up with
/// AND; every hit is rechecked with a plain substring test on the stored key, so the index
/// only has to never miss.
///
/// Why no three-character pieces: they made a key's vocabulary half as large again, almost
/// every one of them distinct, and an index's cost grows with the distinct terms it merges. On
/// realistic Japanese text they were about two thirds of the cost of indexing a poster (see
/// docs/benchmarks.md), while an AND of pairs narrows a long word almost as well. One-character
/// pieces stay: answering a one-character word with a prefix query over the pairs instead
/// (`"abcd"*`) was 40–90 ms for a common character at 200,000 posters (in FTS5), against 0.2 ms.
package enum SearchGrams {
    /// At most this many pairs are looked up per word; more add little to the AND's
    /// selectivity and the recheck keeps the result exact.
    static let maximumPiecesPerWord = 8

    /// The distinct index tokens of a search key, in a stable order. Pieces never span the
    /// separator between contents and hashtags (no query word contains it).
    package static func tokens(forKey key: String) -> [String] {
        document(forKey: key).split(separator: " ").map(String.init)
    }

    /// The tokens of a search key, space-separated (an FTS5 document: how PostgreSQL stores
    /// them, and how SQLite's index did up to schema 7): ``pieces(forKey:)``, each written as
    /// its token.
    package static func document(forKey key: String) -> String {
        document(ofPieces: pieces(forKey: key))
    }

    /// Pieces (``pieces(forKey:)``) written as tokens, space-separated.
    package static func document(ofPieces pieces: [UInt64]) -> String {
        var tokens: [UInt8] = []
        tokens.reserveCapacity(pieces.count * 9)
        for piece in pieces {
            if !tokens.isEmpty { tokens.append(0x20) }
            append(piece, to: &tokens)
        }
        return String(decoding: tokens, as: UTF8.self)
    }

    /// The distinct pieces of a search key, each packed as one number (``pack(_:)``).
    ///
    /// The key's parts are its lines (``SearchText/separator``); within each, first every
    /// distinct one-character piece, then every distinct two-character piece, in order of first
    /// appearance, each once in the whole key. This runs once per imported poster, so it
    /// walks the scalars once and remembers pieces in a small table of its own: splitting the
    /// key by `Character` (grapheme breaking) and a `Set` (SipHash) were over half its time.
    /// A part ends at a line feed that is a `Character` of its own, i.e. not preceded by a
    /// carriage return (a CR LF pair is one `Character`, which splitting by "\n" does not
    /// split at); indexes made earlier were made that way, and PostgreSQL forgets a poster's
    /// tokens only when given exactly its tokens again, so the rule must not change.
    package static func pieces(forKey key: String) -> [UInt64] {
        var scalars: [UInt32] = []
        scalars.reserveCapacity(key.utf8.count)
        var partEnds: [Int] = []
        for scalar in key.unicodeScalars {
            let value = scalar.value
            if value == 0x0A && scalars.last != 0x0D {
                partEnds.append(scalars.count)
            } else {
                scalars.append(value)
            }
        }
        partEnds.append(scalars.count)
        // At most two pieces a scalar: reserved from the scalars, not the UTF-8 (three bytes a
        // kana), since records of a whole batch wait in memory with their pieces.
        var pieces: [UInt64] = []
        pieces.reserveCapacity(scalars.count * 2)
        var seen = PieceSet(capacity: scalars.count * 2)
        var partStart = 0
        for partEnd in partEnds {
            let part = scalars[partStart..<partEnd]
            for length in 1...2 where part.count >= length {
                for start in part.startIndex...(part.endIndex - length) {
                    let piece = pack(part[start..<(start + length)])
                    if seen.insert(piece) { pieces.append(piece) }
                }
            }
            partStart = partEnd
        }
        return pieces
    }

    /// The packed pieces a document holds already: open addressing over a power-of-two table,
    /// sized once for the key (at most two pieces a scalar), so it never grows. Zero marks an
    /// empty slot; the one piece that packs to zero (a lone NUL, which normalised text never
    /// holds) is remembered apart.
    private struct PieceSet {
        private var slots: [UInt64]
        private let mask: Int
        private var holdsZero = false

        init(capacity: Int) {
            var size = 16
            while size < capacity * 2 { size <<= 1 }
            slots = Array(repeating: 0, count: size)
            mask = size - 1
        }

        /// Adds `piece`; false when it was there already.
        mutating func insert(_ piece: UInt64) -> Bool {
            if piece == 0 {
                defer { holdsZero = true }
                return !holdsZero
            }
            var index = Int(truncatingIfNeeded: (piece &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
            while true {
                let slot = slots[index]
                if slot == 0 {
                    slots[index] = piece
                    return true
                }
                if slot == piece { return false }
                index = (index + 1) & mask
            }
        }
    }

    /// The index terms a key must all hold to possibly contain every word of `query` (a
    /// superset: hits are rechecked); empty for an empty query.
    package static func terms(for query: SearchQuery) -> [IndexTerm] {
        var seen: Set<UInt64> = []
        var terms: [IndexTerm] = []
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
            for piece in pieces.map(pack) where seen.insert(piece).inserted {
                terms.append(IndexTerm(token: token(ofPiece: piece)))
            }
        }
        return terms
    }

    /// Whether the index alone answers `query` exactly: every word has at most two
    /// characters, so each is one index token (``terms(for:)``), and a key holds that token
    /// exactly when it contains the word — the key's tokens are all its one- and
    /// two-character pieces, none spanning the separator between contents and hashtags, and no
    /// query word holds the separator (it is white space). Candidates of such a query need no
    /// recheck.
    package static func indexIsExact(for query: SearchQuery) -> Bool {
        !query.isEmpty && query.words.allSatisfy { $0.unicodeScalars.count <= 2 }
    }

    /// The piece an index token names, as UTF-8 (the inverse of how tokens are written: four
    /// base-36 digits a scalar); nil for text that names no piece.
    package static func piece(ofToken token: String) -> [UInt8]? {
        let digits = Array(token.utf8)
        guard digits.count == 4 || digits.count == 8 else { return nil }
        var piece = ""
        for start in stride(from: 0, to: digits.count, by: 4) {
            guard let value = UInt32(String(decoding: digits[start..<(start + 4)], as: UTF8.self), radix: 36),
                let scalar = Unicode.Scalar(value)
            else { return nil }
            piece.unicodeScalars.append(scalar)
        }
        return Array(piece.utf8)
    }

    /// Whether a search key holds every piece (UTF-8) as bytes: what its index tokens say of
    /// it, tested on the key itself (a piece never holds the separator between contents and
    /// hashtags, so a match lies inside one part, as the index's pieces do).
    package static func key(_ key: String, holdsEvery pieces: [[UInt8]]) -> Bool {
        var key = key
        return key.withUTF8 { bytes in pieces.allSatisfy { contains(bytes, $0) } }
    }

    /// Whether `needle` occurs in `haystack`, byte for byte (the empty needle always does).
    static func contains<Haystack: RandomAccessCollection<UInt8>>(_ haystack: Haystack, _ needle: [UInt8]) -> Bool
    where Haystack.Index == Int {
        guard let first = needle.first else { return true }
        guard needle.count <= haystack.count else { return false }
        let start = haystack.startIndex
        return (start...(haystack.endIndex - needle.count)).contains { at in
            haystack[at] == first && (1..<needle.count).allSatisfy { haystack[at + $0] == needle[$0] }
        }
    }

    /// A piece of one or two scalars as one number, 21 bits each. Pieces of different
    /// lengths never collide because normalised text has no NUL (scalar 0): a piece's first
    /// scalar is non-zero, so its length decides which range of numbers it falls in.
    static func pack(_ piece: ArraySlice<UInt32>) -> UInt64 {
        piece.reduce(0) { ($0 << 21) | UInt64($1) }
    }

    /// The scalars of a packed piece: one below 2²¹, else two.
    static func scalars(ofPiece piece: UInt64) -> [UInt32] {
        piece < 1 << 21 ? [UInt32(piece)] : [UInt32(piece >> 21), UInt32(piece & 0x1F_FFFF)]
    }

    /// A packed piece as its index token (four base-36 digits a scalar).
    package static func token(ofPiece piece: UInt64) -> String {
        var token: [UInt8] = []
        append(piece, to: &token)
        return String(decoding: token, as: UTF8.self)
    }

    /// The packed piece an exact token names (the inverse of ``token(ofPiece:)``); nil for
    /// text that names no piece.
    package static func piece(packedFromToken token: String) -> UInt64? {
        let digits = Array(token.utf8)
        guard digits.count == 4 || digits.count == 8 else { return nil }
        var piece: UInt64 = 0
        for start in stride(from: 0, to: digits.count, by: 4) {
            guard let value = UInt32(String(decoding: digits[start..<(start + 4)], as: UTF8.self), radix: 36),
                value > 0, value <= 0x10_FFFF
            else { return nil }
            piece = (piece << 21) | UInt64(value)
        }
        return piece
    }

    private static let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)

    /// Appends each scalar of a packed piece as four base-36 digits (36⁴ = 1,679,616 > 0x10FFFF).
    private static func append(_ piece: UInt64, to tokens: inout [UInt8]) {
        for value in scalars(ofPiece: piece) {
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
