import TenbinKit

/// The vote route's answers without writing a poster's JSON for every vote. Between two votes
/// on a poster only its counts change, so the poster's JSON is written once and kept split
/// around the two counts; an answer is the kept bytes with the new counts put in. A poster
/// whose text, hashtags or images changed (an edit) no longer matches what is kept, and is
/// written again.
final class VoteAnswers: Sendable {
    /// At most this many posters' JSON is kept (all are dropped when it is reached).
    static let capacity = 1024

    /// A poster's JSON answer cut at its two counts.
    private struct Template {
        /// The poster it was written from, counts and trending score set to zero.
        let poster: Poster
        /// The bytes before `good1`'s value, between `good1`'s and `good2`'s, and after.
        let parts: [[UInt8]]
    }

    // Only the vote batcher's thread calls `response(for:)`, so the lock is never contended.
    private let templates = Locked<[Int64: Template]>([:])
    /// How many times a poster's JSON was written whole (the tests' evidence of reuse).
    let writes = Locked(0)
    /// The headers of every JSON answer, security headers included (so that completing them as
    /// the answer is sent copies nothing).
    private let headers = SecurityHeaders.complete(HTTPResponse.json("")).headers

    /// The answer to a vote that left `poster` as it is: byte for byte `JSON.poster(poster)`.
    func response(for poster: Poster) -> HTTPResponse {
        // What a vote changes: the counts, and the trending score, which the JSON leaves out.
        var key = poster
        (key.good1, key.good2, key.trendingScore) = (0, 0, 0)
        var template = templates.withLock { $0[poster.id] }
        if template?.poster != key {
            writes.withLock { $0 += 1 }
            guard let made = Self.template(key) else { return .json(JSON.poster(poster)) }
            templates.withLock { templates in
                if templates.count >= Self.capacity { templates.removeAll(keepingCapacity: true) }
                templates[poster.id] = made
            }
            template = made
        }
        // Set just above when it was missing or stale.
        let parts = template!.parts
        var body: [UInt8] = []
        body.reserveCapacity(parts[0].count + parts[1].count + parts[2].count + 40)
        body += parts[0]
        Self.appendDecimal(poster.good1, to: &body)
        body += parts[1]
        Self.appendDecimal(poster.good2, to: &body)
        body += parts[2]
        return HTTPResponse(status: 200, headers: headers, body: .bytes(body))
    }

    /// Appends `value` in decimal digits, as `String(value)` writes it, without making the string.
    static func appendDecimal(_ value: Int, to body: inout [UInt8]) {
        guard value > 0 else {
            body += value == 0 ? [UInt8(ascii: "0")] : Array(String(value).utf8)
            return
        }
        // An Int has at most 19 digits; written from the last one back.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var rest = value
            var start = 20
            while rest > 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            body.append(contentsOf: buffer[start..<20])
        }
    }

    /// `poster`'s answer cut at its counts (both zero), or nil if they cannot be found.
    private static func template(_ poster: Poster) -> Template? {
        guard case .bytes(let bytes) = HTTPResponse.json(JSON.poster(poster)).body,
            let first = zero(after: #""good1":"#, in: bytes, from: 0), let second = zero(after: #""good2":"#, in: bytes, from: first + 1)
        else { return nil }
        return Template(
            poster: poster, parts: [Array(bytes[..<first]), Array(bytes[(first + 1)..<second]), Array(bytes[(second + 1)...])])
    }

    /// Where the `0` after the first `key` (then spaces) at or past `start` is. Inside a JSON
    /// string every quote is escaped, so a quoted key followed by a colon is the key.
    private static func zero(after key: String, in bytes: [UInt8], from start: Int) -> Int? {
        let needle = Array(key.utf8)
        guard bytes.count >= start + needle.count else { return nil }
        for index in start...(bytes.count - needle.count) where bytes[index..<index + needle.count].elementsEqual(needle) {
            var value = index + needle.count
            while value < bytes.count, bytes[value] == UInt8(ascii: " ") { value += 1 }
            return value < bytes.count && bytes[value] == UInt8(ascii: "0") ? value : nil
        }
        return nil
    }
}
