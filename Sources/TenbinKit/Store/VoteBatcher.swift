import Dispatch

/// Group commit for votes: votes cast while a commit is under way are committed together in
/// the next transaction (one ``StoreBackend/commitVotes(_:)`` call that adds a delta per
/// poster and returns the posters it left), and each vote is answered only after the
/// transaction holding it commits. Under load this turns thousands of commits into a few,
/// without giving up durability; a lone vote waits for nothing but its own commit.
///
/// Each commit also adds the votes to their posters' timelines (the minute of the commit), and
/// at most once a minute, after a commit, the batcher folds timeline buckets that have aged
/// (``StoreWriting/compactTimelines(now:)``) in a short transaction of its own.
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
    package static let maximumTimes = 1_000_000_000

    /// Throws unless `times` is a vote count one request may add.
    static func validate(_ times: Int) throws(BoardError) {
        guard (1...maximumTimes).contains(times) else { throw .invalidVoteCount(times) }
    }

    /// What a vote's caller is told once its batch has committed (or failed).
    typealias Completion = @Sendable (Result<Poster, any Error>) -> Void

    private struct Pending {
        let id: Int64
        let side: VoteSide
        let times: Int
        let completion: Completion
    }

    private struct State {
        var pending: [Pending] = []
        var committing = false
        var committedVotes = 0
        var commits = 0
        /// When timelines were last compacted by this batcher (nil: not yet).
        var compacted: Timestamp?
    }

    private let store: any StoreBackend
    private let options: Options
    /// The clock votes are dated by in timelines.
    private let now: @Sendable () -> Timestamp
    private let state = Locked(State())
    /// Commits run here, never on a thread of Swift's cooperative pool (they block on I/O).
    private let queue = DispatchQueue(label: "tenbin.votes")

    init(store: any StoreBackend, options: Options, now: @escaping @Sendable () -> Timestamp = Timestamp.now) {
        self.store = store
        self.options = options
        self.now = now
    }

    /// How often, at most, the batcher compacts timelines.
    static let compactionInterval: Int64 = 60

    /// Votes committed and transactions used so far (for metrics and benchmarks).
    package var statistics: (votes: Int, commits: Int) {
        state.withLock { ($0.committedVotes, $0.commits) }
    }

    func cast(id: Int64, side: VoteSide, times: Int) async throws -> Poster {
        try await withCheckedThrowingContinuation { continuation in
            cast(id: id, side: side, times: times) { continuation.resume(with: $0) }
        }
    }

    /// Queues a vote; `completion` runs on the batcher's thread once the transaction holding
    /// the vote has committed (or failed), after every earlier vote of that batch was told.
    func cast(id: Int64, side: VoteSide, times: Int, completion: @escaping Completion) {
        let start = state.withLock { state -> Bool in
            state.pending.append(Pending(id: id, side: side, times: times, completion: completion))
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

    /// Commits batches until nothing is pending.
    private func drain() {
        while true {
            let batch = state.withLock { state -> [Pending] in
                guard state.pending.count > options.maximumBatch else {
                    // The whole queue: swapping arrays copies nothing.
                    let batch = state.pending
                    state.pending = []
                    if batch.isEmpty { state.committing = false }
                    return batch
                }
                let batch = Array(state.pending.prefix(options.maximumBatch))
                state.pending.removeFirst(batch.count)
                return batch
            }
            guard !batch.isEmpty else { return }
            commit(batch)
        }
    }

    /// Commits one batch in one transaction — one ``StoreBackend/commitVotes(_:)`` call with
    /// a delta per poster — and tells every vote of it how it went.
    private func commit(_ batch: [Pending]) {
        var deltas: [Int64: VoteDelta] = [:]
        for vote in batch {
            var delta = deltas[vote.id] ?? VoteDelta(id: vote.id, good1: 0, good2: 0)
            // A poster's total may overflow only past Int.max votes; a batch adds at most
            // maximumBatch × maximumTimes, far below it.
            if vote.side == .first { delta.good1 += vote.times } else { delta.good2 += vote.times }
            deltas[vote.id] = delta
        }
        // Ascending ids: two servers' batches lock shared rows in the same order.
        let ordered = deltas.values.sorted { $0.id < $1.id }
        let time = now()
        let result = Result {
            Dictionary(try store.commitVotes(ordered, at: time).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        }
        switch result {
        case .success(let posters):
            let counted = batch.reduce(0) { $0 + (posters[$1.id] == nil ? 0 : $1.times) }
            state.withLock {
                $0.committedVotes += counted
                $0.commits += 1
            }
            for vote in batch {
                if let poster = posters[vote.id] {
                    vote.completion(.success(poster))
                } else {
                    vote.completion(.failure(BoardError.noSuchPoster(vote.id)))
                }
            }
        case .failure(let error):
            for vote in batch { vote.completion(.failure(error)) }
        }
        compactIfDue(at: time)
    }

    /// Compacts timelines when the last compaction is a minute old or more. It runs after the
    /// batch's votes were answered, so no vote waits for it.
    private func compactIfDue(at time: Timestamp) {
        let due = state.withLock { state -> Bool in
            if let last = state.compacted, time.secondsSince1970 - last.secondsSince1970 < Self.compactionInterval { return false }
            state.compacted = time
            return true
        }
        guard due else { return }
        // A failed compaction changes nothing (one transaction) and the next one, a minute
        // later, does its work too: no vote depends on it, so there is no one to tell.
        _ = try? store.write { try $0.compactTimelines(now: time) }
    }
}
