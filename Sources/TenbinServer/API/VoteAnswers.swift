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
        /// The poster it was written from, counts set to zero.
        let poster: Poster
        /// The bytes before `good1`'s value, between `good1`'s and `good2`'s, and after.
        let parts: [[UInt8]]
    }

    // Only the vote batcher's thread calls `response(for:)`, so the lock is never contended.
    private let templates = Locked<[Int64: Template]>([:])
    /// The headers of every JSON answer.
    private let headers = HTTPResponse.json("").headers

    /// The answer to a vote that left `poster` as it is: byte for byte `JSON.poster(poster)`.
    func response(for poster: Poster) -> HTTPResponse {
        var key = poster
        (key.good1, key.good2) = (0, 0)
        var template = templates.withLock { $0[poster.id] }
        if template?.poster != key {
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
        body += String(poster.good1).utf8
        body += parts[1]
        body += String(poster.good2).utf8
        body += parts[2]
        return HTTPResponse(status: 200, headers: headers, body: .bytes(body))
    }

    /// `poster`'s answer cut at its counts (both zero), or nil if they cannot be found.
    private static func template(_ poster: Poster) -> Template? {
        guard case .bytes(let bytes) = HTTPResponse.json(JSON.poster(poster)).body else { return nil }
        // Inside a JSON string every quote is escaped, so `"good1": ` can only be the key.
        guard let first = range(of: #""good1": 0"#, in: bytes), let second = range(of: #""good2": 0"#, in: bytes),
            first.upperBound <= second.lowerBound
        else { return nil }
        return Template(
            poster: poster,
            parts: [
                Array(bytes[..<(first.upperBound - 1)]), Array(bytes[first.upperBound..<(second.upperBound - 1)]),
                Array(bytes[second.upperBound...]),
            ])
    }

    /// Where `text` first occurs in `bytes`.
    private static func range(of text: String, in bytes: [UInt8]) -> Range<Int>? {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return nil }
        for start in 0...(bytes.count - needle.count) where bytes[start..<start + needle.count].elementsEqual(needle) {
            return start..<start + needle.count
        }
        return nil
    }
}
