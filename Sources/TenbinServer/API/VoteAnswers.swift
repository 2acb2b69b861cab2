import TenbinKit

/// The vote route's answers, written once per poster and commit. Every vote of one batch gets
/// the same poster (its commit left it so), so the JSON written for the first vote serves the
/// others; a later commit changes the counts, and the poster no longer matches what is kept.
final class VoteAnswers: Sendable {
    /// At most this many posters' answers are kept (all are dropped when it is reached).
    static let capacity = 1024

    // Only the vote batcher's thread calls `response(for:)`, so the lock is never contended.
    private let recent = Locked<[Int64: (poster: Poster, response: HTTPResponse)]>([:])

    /// The answer to a vote that left `poster` as it is.
    func response(for poster: Poster) -> HTTPResponse {
        if let kept = recent.withLock({ $0[poster.id] }), kept.poster == poster { return kept.response }
        let response = HTTPResponse.json(JSON.poster(poster))
        recent.withLock { recent in
            if recent.count >= Self.capacity { recent.removeAll(keepingCapacity: true) }
            recent[poster.id] = (poster, response)
        }
        return response
    }
}
