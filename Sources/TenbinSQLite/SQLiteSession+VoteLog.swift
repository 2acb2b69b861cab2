import TenbinKit

/// The vote log (schema 16; ``VoteSnapshot`` says what it is for). SQLite commits one writer at
/// a time, so the batch counter (`vote_batch.last`), bumped in each batch's transaction,
/// numbers batches in commit order, and a read's mark is the counter as it sees it.
extension SQLiteSession {
    /// Schema step 16: the batch counter and the oldest mark still answered (one row); a row
    /// per poster per batch with its total and its trending score before the batch, keyed by batch (pruning deletes
    /// from the start) and indexed by poster then batch, so a poster's first batch after a mark
    /// is one probe; each logged poster's last batch, indexed
    /// by batch, so the posters moved since a mark are an index range; and the batch number
    /// noted at the times pruning ran (``StoreWriting/pruneVoteLog(now:keeping:)``).
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
        CREATE INDEX vote_log_poster ON vote_log(poster_id, batch);
        CREATE TABLE vote_moved (
            poster_id INTEGER PRIMARY KEY NOT NULL,
            batch INTEGER NOT NULL
        );
        CREATE INDEX vote_moved_batch ON vote_moved(batch);
        CREATE TABLE vote_log_time (
            at INTEGER PRIMARY KEY NOT NULL,
            batch INTEGER NOT NULL
        );

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
            try db.statement(
                "INSERT INTO vote_moved (poster_id, batch) VALUES (?1, ?2) ON CONFLICT (poster_id) DO UPDATE SET batch = ?2"
            ).bind(id, batch).run()
        }
        if batch % VoteSnapshot.pruneEvery == 0 { try pruneVoteLog(now: time, keeping: VoteSnapshot.retention) }
    }

    func voteLogMarks() throws -> VoteLogMarks {
        try db.statement("SELECT last, oldest FROM vote_batch").first { VoteLogMarks(last: $0.int64(0), oldest: $0.int64(1)) }
            ?? VoteLogMarks(last: 0, oldest: 0)
    }

    func keysAsOf(mark: Int64, order: FeedOrder) throws -> [Int64: Int] {
        guard let column = order.voteLogColumn else { return [:] }
        // The moved posters from the index on their last batch; for each, its first batch
        // after the mark from the log's key. A deleted poster has no row to join.
        let statement = try db.statement(
            """
            SELECT m.poster_id,
                (SELECT l.\(column) FROM vote_log l WHERE l.poster_id = m.poster_id AND l.batch > ?1 ORDER BY l.batch LIMIT 1)
            FROM vote_moved m JOIN poster p ON p.id = m.poster_id WHERE m.batch > ?1
            """
        ).bind(mark)
        var keys: [Int64: Int] = [:]
        while try statement.step() { keys[statement.int64(0)] = statement.int(1) }
        return keys
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
        // its start. A poster whose last batch aged has no newer rows: it is not moved since
        // any mark still answered.
        try db.statement("DELETE FROM vote_log WHERE batch <= ?").bind(prunable).run()
        try db.statement("DELETE FROM vote_moved WHERE batch <= ?").bind(prunable).run()
        try db.statement("DELETE FROM vote_log_time WHERE at < ?").bind(cutoff).run()
        try db.statement("UPDATE vote_batch SET oldest = ?").bind(prunable).run()
    }
}
