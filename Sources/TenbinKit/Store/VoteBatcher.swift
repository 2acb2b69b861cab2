import Dispatch

/// Group commit for votes: votes cast while a commit is under way are committed together in
/// the next transaction (one `addVotes` per poster per batch), and each vote is answered only
/// after the transaction holding it commits. Under load this turns thousands of commits into
/// a few, without giving up durability; a lone vote waits for nothing but its own commit.
public final class VoteBatcher: Sendable {
    /// How votes are grouped.
    public struct Options: Sendable {
        /// How long the first vote of a batch waits for others before its commit starts
        /// (zero: batches form only from votes that arrive while a commit is under way).
        public var window: Duration
        /// At most this many votes in one transaction.
        public var maximumBatch: Int

        /// Options; by default no waiting and at most 4,096 votes a transaction.
        public init(window: Duration = .zero, maximumBatch: Int = 4096) {
            self.window = window
            self.maximumBatch = max(1, maximumBatch)
        }
    }

    /// The most votes one request may add at once.
    public static let maximumTimes = 1_000_000_000

    /// Throws unless `times` is a vote count one request may add.
    static func validate(_ times: Int) throws(BoardError) {
        guard (1...maximumTimes).contains(times) else { throw .invalidVoteCount(times) }
    }

    private struct Pending {
        let id: Int64
        let side: VoteSide
        let times: Int
        let continuation: CheckedContinuation<Poster, any Error>
    }

    private struct State {
        var pending: [Pending] = []
        var committing = false
        var committedVotes = 0
        var commits = 0
    }

    private let store: any StoreBackend
    private let options: Options
    private let state = Locked(State())
    /// Commits run here, never on a thread of Swift's cooperative pool (they block on I/O).
    private let queue = DispatchQueue(label: "tenbin.votes")

    init(store: any StoreBackend, options: Options) {
        self.store = store
        self.options = options
    }

    /// Votes committed and transactions used so far (for metrics and benchmarks).
    public var statistics: (votes: Int, commits: Int) {
        state.withLock { ($0.committedVotes, $0.commits) }
    }

    func cast(id: Int64, side: VoteSide, times: Int) async throws -> Poster {
        try await withCheckedThrowingContinuation { continuation in
            let start = state.withLock { state -> Bool in
                state.pending.append(Pending(id: id, side: side, times: times, continuation: continuation))
                guard !state.committing else { return false }
                state.committing = true
                return true
            }
            guard start else { return }
            let window = options.window
            if window > .zero {
                let nanoseconds = window.components.seconds * 1_000_000_000 + window.components.attoseconds / 1_000_000_000
                queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { self.drain() }
            } else {
                queue.async { self.drain() }
            }
        }
    }

    /// Commits batches until nothing is pending.
    private func drain() {
        while true {
            let batch = state.withLock { state -> [Pending] in
                let batch = Array(state.pending.prefix(options.maximumBatch))
                state.pending.removeFirst(batch.count)
                if batch.isEmpty { state.committing = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            commit(batch)
        }
    }

    private func commit(_ batch: [Pending]) {
        var deltas: [Int64: (good1: Int, good2: Int)] = [:]
        for vote in batch {
            var delta = deltas[vote.id] ?? (0, 0)
            // A poster's total may overflow only past Int.max votes; a batch adds at most
            // maximumBatch × maximumTimes, far below it.
            if vote.side == .first { delta.good1 += vote.times } else { delta.good2 += vote.times }
            deltas[vote.id] = delta
        }
        let ids = deltas.keys.sorted()
        let result = Result {
            try store.write { writing -> [Int64: Poster] in
                var found: [Int64] = []
                for id in ids {
                    // Ascending ids: two servers' batches lock rows in the same order.
                    let delta = deltas[id]!  // every id came from deltas
                    if try writing.addVotes(id: id, good1: delta.good1, good2: delta.good2) { found.append(id) }
                }
                return Dictionary(uniqueKeysWithValues: try writing.posters(ids: found).map { ($0.id, $0) })
            }
        }
        switch result {
        case .success(let posters):
            state.withLock {
                $0.committedVotes += batch.filter { posters[$0.id] != nil }.reduce(0) { $0 + $1.times }
                $0.commits += 1
            }
            for vote in batch {
                if let poster = posters[vote.id] {
                    vote.continuation.resume(returning: poster)
                } else {
                    vote.continuation.resume(throwing: BoardError.noSuchPoster(vote.id))
                }
            }
        case .failure(let error):
            for vote in batch { vote.continuation.resume(throwing: error) }
        }
    }
}
