#if canImport(Glibc)
    import Glibc
#endif

/// The header fields of a request that tenbin reads, by name, and the size of all of them.
///
/// libmicrohttpd has parsed the head already; each field is looked at once, in its own
/// iteration, and only the fields below become Swift strings: the rest (user agents and
/// everything else a browser sends) are counted toward the 431 limit and never copied. Before,
/// every field's name was lowercased and stored in a dictionary per request, most of them to
/// be thrown away unread.
struct HeaderFields: Sendable {
    /// The fields tenbin reads, by their lowercased wire name.
    static let known = [
        "accept", "accept-encoding", "accept-language", "authorization", "content-length", "content-type", "cookie", "forwarded",
        "host", "if-none-match", "last-event-id", "origin", "referer", "tenbin-proof", "transfer-encoding", "x-forwarded-for",
        "x-forwarded-host",
        "x-forwarded-proto",
    ]

    /// The values by position in ``known``; a repeated field's values are joined with ", ".
    /// Held inline: an array was one more allocation per request. Its size is ``known``'s count
    /// (`HeaderFieldsTests` stores every known field).
    private var values = InlineArray<18, String?>(repeating: nil)
    /// Bytes of every field's name and value, read or not.
    private(set) var bytes = 0

    /// No fields.
    init() {}

    /// Fields given by name (any case), as tests and the in-process harness write them.
    init(_ fields: [String: String]) {
        for (name, value) in fields { add(name: name.lowercased(), value: value) }
    }

    /// The value of `name` (lowercase), or nil when the request did not send it. Asking for a
    /// field not in ``known`` is a programming error: it would always read nil.
    subscript(name: String) -> String? {
        // A scan, not a dictionary: hashing the name cost more than comparing a few short
        // strings (most fit in a String's inline bytes, compared as two words).
        guard let position = Self.known.firstIndex(of: name) else {
            assertionFailure("header \(name) is not one tenbin reads: add it to HeaderFields.known")
            return nil
        }
        return values[position]
    }

    /// Adds a field as libmicrohttpd hands it over: its name in any case (C string).
    mutating func add(name: UnsafePointer<CChar>, value: UnsafePointer<CChar>?) {
        let valueBytes = value.map { strlen($0) } ?? 0
        bytes += strlen(name) + valueBytes
        guard let position = Self.position(of: name) else { return }
        append(value.map { String(cString: $0) } ?? "", at: position)
    }

    private mutating func add(name: String, value: String) {
        bytes += name.utf8.count + value.utf8.count
        guard let position = Self.known.firstIndex(of: name) else { return }
        append(value, at: position)
    }

    private mutating func append(_ value: String, at position: Int) {
        if let earlier = values[position] {
            values[position] = earlier + ", " + value
        } else {
            values[position] = value
        }
    }

    /// The position of a C-string name among ``known`` (compared without case), or nil.
    private static func position(of name: UnsafePointer<CChar>) -> Int? {
        cKnown.firstIndex { strcasecmp($0, name) == 0 }
    }

    /// ``known`` as C strings, made once and never freed (strdup of a short constant cannot
    /// fail but for want of memory at start).
    private nonisolated(unsafe) static let cKnown: [UnsafeMutablePointer<CChar>] = known.map { strdup($0)! }
}
