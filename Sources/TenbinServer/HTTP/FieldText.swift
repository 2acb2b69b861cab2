/// Header-field text handled as the ASCII it is made of (methods, media types, tokens, header
/// names): spaces and tabs trimmed and letters' case folded byte by byte, without Unicode's
/// rules and without a lowercased copy. Every request's `Content-Type` and every answer's went
/// through `lowercased()` before; for a vote that was 3 % of an I/O thread's time.
extension Substring {
    /// The text without leading and trailing spaces and tabs.
    var trimmingCharacters: Substring {
        let bytes = utf8
        guard let first = bytes.firstIndex(where: { !Self.isSpace($0) }) else { return self[endIndex...] }
        // The byte after the last one kept is a space or the end: a character boundary either way.
        let last = bytes.lastIndex(where: { !Self.isSpace($0) })!  // exists when `first` does
        return self[first..<bytes.index(after: last)]
    }

    /// The text before its first `;` (a media type's parameters), trimmed: `application/json`
    /// of `Application/JSON ; charset=utf-8`.
    var mediaType: Substring {
        guard let semicolon = utf8.firstIndex(of: UInt8(ascii: ";")) else { return trimmingCharacters }
        return self[..<semicolon].trimmingCharacters
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
}

extension String {
    /// The text without leading and trailing spaces and tabs.
    var trimmingCharacters: Substring { self[...].trimmingCharacters }

    /// The media type a `Content-Type` value names (see ``Substring/mediaType``).
    var mediaType: Substring { self[...].mediaType }
}

extension StringProtocol {
    /// Whether the text is `other` with ASCII letters in any case in either.
    func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
        utf8.count == other.utf8.count && hasPrefixIgnoringASCIICase(other)
    }

    /// Whether the text begins with `prefix`, ASCII letters in any case in either.
    func hasPrefixIgnoringASCIICase(_ prefix: some StringProtocol) -> Bool {
        var bytes = utf8.makeIterator()
        for expected in prefix.utf8 {
            guard let byte = bytes.next(), Self.folded(byte) == Self.folded(expected) else { return false }
        }
        return true
    }

    private static func folded(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
}
