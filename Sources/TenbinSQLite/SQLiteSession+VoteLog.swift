import TenbinKit

/// The vote log (schema 16, slimmed in 18; ``VoteSnapshot`` says what it is for). SQLite
/// commits one writer at a time, so the batch counter (`vote_batch.last`), bumped in each
/// batch's transaction, numbers batches in commit order, and a read's mark is the counter as it
/// sees it.
///
/// A batch appends one row per poster it votes for to a table keyed by batch first, so a vote
/// adds to the last page of one B-tree and nothing else: schema 16 also kept the log indexed by
/// poster and each poster's last batch (`vote_moved`, indexed by batch), three pages at random
/// per vote, which made the vote log a third of a vote's CPU (docs/benchmarks.md, `trending`).
/// A walk's page instead reads the rows after its mark in batch order and keeps each poster's
/// first (``VoteLogKeys``, which remembers what it read per mark, so each page of a walk reads
/// only the batches since the page before).
extension SQLiteSession {
    /// Schema step 16's tables: the batch counter and the oldest mark still answered (one row);
    /// a row per poster per batch with its total and its trending score before the batch, keyed
    /// by batch (pruning deletes from the start); and the batch number noted at the times
    /// pruning ran (``StoreWriting/pruneVoteLog(now:keeping:)``). A new store's schema.
    static let voteLogSchema = """
        CREATE TABLE vote_batch (
            id INTEGER PRIMARY KEY CHECK (id = 0),
            last INTEGER NOT NULL,
            oldest INTEGER NOT NULL
        );
        INSERT INTO vote_batch (id, last, oldest) VALUES (0, 0, 0);
        CREATE TABLE vote_log (
            poster_id INTEGER NOT NULL,
            batch INTEGER NOT NULL,
            votes_before INTEGER NOT NULL,
            trend_before INTEGER NOT NULL,
            PRIMARY KEY (batch, poster_id)
        ) WITHOUT ROWID;
        CREATE TABLE vote_log_time (
            at INTEGER PRIMARY KEY NOT NULL,
            batch INTEGER NOT NULL
        );

        """

    /// What schema 16 also built and 18 drops: the log by poster, and each poster's last batch
    /// by batch (see above).
    static let voteLogByPosterSchema = """
        CREATE INDEX vote_log_poster ON vote_log(poster_id, batch);
        CREATE TABLE vote_moved (
            poster_id INTEGER PRIMARY KEY NOT NULL,
            batch INTEGER NOT NULL
        );
        CREATE INDEX vote_moved_batch ON vote_moved(batch);

        """

    /// Schema step 18: the log keyed by batch alone.
    static let voteLogByBatchOnly = """
        DROP INDEX vote_log_poster;
        DROP TABLE vote_moved;

        """

    /// Logs a batch that added to the posters `before` names (their totals and scores before
    /// it), under the next batch number; every ``VoteSnapshot/pruneEvery``th batch prunes the log.
    func logVoteBatch(_ before: [(id: Int64, votes: Int, score: Int64)], at time: Timestamp) throws {
        guard !before.isEmpty else { return }
        // A bound proof: the one row exists from schema 16 on and is never deleted.
        let batch = try db.statement("UPDATE vote_batch SET last = last + 1 RETURNING last").first { $0.int64(0) } ?? 0
        for (id, votes, score) in before {
            try db.statement("INSERT INTO vote_log (poster_id, batch, votes_before, trend_before) VALUES (?, ?, ?, ?)")
                .bind(id, batch, votes, score).run()
        }
        if batch % VoteSnapshot.pruneEvery == 0 { try pruneVoteLog(now: time, keeping: VoteSnapshot.retention) }
    }

    func voteLogMarks() throws -> VoteLogMarks {
        try db.statement("SELECT last, oldest FROM vote_batch").first { VoteLogMarks(last: $0.int64(0), oldest: $0.int64(1)) }
            ?? VoteLogMarks(last: 0, oldest: 0)
    }

    func keysAsOf(mark: Int64, order: FeedOrder) throws -> [Int64: Int] {
        guard order.movesWithVotes else { return [:] }
        let marks = try voteLogMarks()
        let keys = try (voteLogKeys ?? VoteLogKeys()).keys(mark: mark, through: marks.last, oldest: marks.oldest) { after, through in
            try db.statement(
                "SELECT poster_id, votes_before, trend_before FROM vote_log WHERE batch > ? AND batch <= ? ORDER BY batch"
            ).bind(after, through).map { (id: $0.int64(0), key: VoteLogKeys.Key(votes: $0.int(1), score: $0.int64(2))) }
        }
        return keys.mapValues { order == .trending ? Int($0.score) : $0.votes }
    }

    func pruneVoteLog(now: Timestamp, keeping seconds: Int64) throws {
        let marks = try voteLogMarks()
        try db.statement("INSERT OR REPLACE INTO vote_log_time (at, batch) VALUES (?, ?)").bind(now.secondsSince1970, marks.last).run()
        let cutoff = now.secondsSince1970 - seconds
        guard
            let prunable = try db.statement("SELECT max(batch) FROM vote_log_time WHERE at <= ?").bind(cutoff).first({
                $0.isNull(0) ? nil : $0.int64(0)
            }) ?? nil,
            prunable > marks.oldest
        else { return }
        // The log's key starts with the batch: what aged since the last pruning is a range at
        // its start.
        try db.statement("DELETE FROM vote_log WHERE batch <= ?").bind(prunable).run()
        try db.statement("DELETE FROM vote_log_time WHERE at < ?").bind(cutoff).run()
        try db.statement("UPDATE vote_batch SET oldest = ?").bind(prunable).run()
    }
}

/// Each walk's keys as of its mark, as far as this process has read the vote log: for a mark,
/// every poster voted for in the batches after it up to some batch, with its key (total and
/// score) before the first of them. That key is a fact of the log no later batch changes, so a
/// page of a walk reads only the batches since the last read for its mark, and a read may use
/// keys found by a read at a later snapshot: a poster voted for only after the read's own last
/// batch still has, in that read, the key it had at the mark.
///
/// Marks are kept least recently used first, at most ``capacity`` of them and
/// ``keyCapacity`` keys in all; a mark the log no longer answers is dropped.
final class VoteLogKeys: Sendable {
    /// A poster's order keys before a batch: its total votes and its trending score.
    struct Key: Sendable, Equatable {
        var votes: Int
        var score: Int64
    }

    /// What is known for one mark: the keys found in the batches after it up to `through`.
    private struct Entry {
        var through: Int64
        var keys: [Int64: Key]
        var used: UInt64
    }

    /// How many marks are remembered (walks under way at once on this process, roughly).
    static let capacity = 64
    /// How many keys all marks may hold together (about 48 bytes each).
    static let keyCapacity = 2_000_000

    // Read and written only under this lock; the log is read outside it.
    private let entries = Locked<(marks: [Int64: Entry], clock: UInt64)>(([:], 0))

    /// The keys as of `mark` of the posters voted for in the batches after it up to `through`
    /// (a read's last batch; the log answers from `oldest` on), reading the batches not yet read
    /// for this mark with `read` (the rows of batches after its first argument up to its second,
    /// in batch order).
    func keys(
        mark: Int64, through: Int64, oldest: Int64, read: (Int64, Int64) throws -> [(id: Int64, key: Key)]
    ) throws -> [Int64: Key] {
        let known = entries.withLock { state -> Entry? in
            state.marks = state.marks.filter { $0.key >= oldest }
            return state.marks[mark]
        }
        var entry = known ?? Entry(through: mark, keys: [:], used: 0)
        guard entry.through < through else { return entry.keys }
        let start = entry.through
        for row in try read(start, through) where entry.keys[row.id] == nil { entry.keys[row.id] = row.key }
        entry.through = through
        return entries.withLock { state in
            state.clock += 1
            // Another read of the same mark may have read on meanwhile: both found facts, so
            // the union holds, read through the further of the two.
            if let other = state.marks[mark] {
                for (id, key) in other.keys where entry.keys[id] == nil { entry.keys[id] = key }
                entry.through = max(entry.through, other.through)
            }
            entry.used = state.clock
            state.marks[mark] = entry
            var total = state.marks.values.reduce(0) { $0 + $1.keys.count }
            while state.marks.count > Self.capacity || (total > Self.keyCapacity && state.marks.count > 1) {
                // A bound proof: the loop runs only while there is more than one mark.
                let (oldestUsed, dropped) = state.marks.min { $0.value.used < $1.value.used }!
                state.marks[oldestUsed] = nil
                total -= dropped.keys.count
            }
            return entry.keys
        }
    }
}
