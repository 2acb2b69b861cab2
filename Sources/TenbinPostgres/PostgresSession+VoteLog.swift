import TenbinKit

/// The vote log (schema step 12; ``VoteSnapshot`` says what it is for).
///
/// Each vote batch's statement first bumps the batch counter (`vote_batch.last`), whose row
/// lock it holds until it commits: batches, on every server, take their numbers in commit order,
/// so a snapshot that sees a batch sees every batch numbered below it, and a read's mark is the
/// counter as its snapshot sees it (on a hot standby too, as replayed). The counter is taken
/// before any poster row, by every batch, so batches never deadlock on it.
extension PostgresSession {
    /// Schema step 12: the counter (one row), and the oldest mark still answered (one row of
    /// its own, so pruning never holds the counter's lock); a row per
    /// poster per batch with its total and trending score before the batch, keyed by batch (pruning deletes from the
    /// start) and indexed by poster then batch (a poster's first batch after a mark is one
    /// probe); each logged poster's last batch, indexed by batch (the posters moved since a
    /// mark are an index range); and the batch number noted at the times pruning ran.
    static let voteLogSchemaSQL = """
        CREATE TABLE vote_batch (
            id integer PRIMARY KEY CHECK (id = 0),
            last bigint NOT NULL
        );
        INSERT INTO vote_batch (id, last) VALUES (0, 0);
        CREATE TABLE vote_log_oldest (
            id integer PRIMARY KEY CHECK (id = 0),
            oldest bigint NOT NULL
        );
        INSERT INTO vote_log_oldest (id, oldest) VALUES (0, 0);
        CREATE TABLE vote_log (
            batch bigint NOT NULL,
            poster_id bigint NOT NULL,
            votes_before bigint NOT NULL,
            trend_before bigint NOT NULL,
            PRIMARY KEY (batch, poster_id)
        );
        CREATE INDEX vote_log_poster ON vote_log (poster_id, batch);
        CREATE TABLE vote_moved (
            poster_id bigint PRIMARY KEY,
            batch bigint NOT NULL
        );
        CREATE INDEX vote_moved_batch ON vote_moved (batch);
        CREATE TABLE vote_log_time (
            at bigint PRIMARY KEY,
            batch bigint NOT NULL
        )
        """

    /// The vote statement's first CTE: the batch's number.
    static let voteBatchCTE = "batch AS (UPDATE vote_batch SET last = last + 1 RETURNING last)"

    /// The condition that makes a vote statement take the counter before any poster row: an
    /// uncorrelated subquery, run once before the rows it filters are read, so before they
    /// are locked.
    static let afterVoteBatch = "(SELECT last FROM batch) > 0"

    /// The vote statement's CTEs logging the batch: `voted` (the posters updated, as updated,
    /// with `trend_before`, the score before) and `delta` (the votes added) name its rows.
    static let logVotesCTE = """
        logged AS (
            INSERT INTO vote_log (batch, poster_id, votes_before, trend_before)
            SELECT batch.last, voted.id, voted.good1 + voted.good2 - delta.good1 - delta.good2, voted.trend_before
            FROM voted JOIN delta ON delta.id = voted.id, batch),
        moved AS (
            INSERT INTO vote_moved (poster_id, batch) SELECT voted.id, batch.last FROM voted, batch ORDER BY voted.id
            ON CONFLICT (poster_id) DO UPDATE SET batch = excluded.batch)
        """

    func voteLogMarks() throws -> VoteLogMarks {
        let rows = try select("SELECT b.last, o.oldest FROM vote_batch b, vote_log_oldest o")
        guard rows.count == 1 else { return VoteLogMarks(last: 0, oldest: 0) }
        return VoteLogMarks(last: try rows.int64(0, 0), oldest: try rows.int64(0, 1))
    }

    func keysAsOf(mark: Int64, order: FeedOrder) throws -> [Int64: Int] {
        guard let column = order.voteLogColumn else { return [:] }
        let rows = try select(
            """
            SELECT m.poster_id,
                (SELECT l.\(unescaped: column) FROM vote_log l WHERE l.poster_id = m.poster_id AND l.batch > \(mark) ORDER BY l.batch LIMIT 1)
            FROM vote_moved m JOIN poster p ON p.id = m.poster_id WHERE m.batch > \(mark)
            """)
        var keys: [Int64: Int] = [:]
        for row in 0..<rows.count { keys[try rows.int64(row, 0)] = try rows.int(row, 1) }
        return keys
    }

    func pruneVoteLog(now: Timestamp, keeping seconds: Int64) throws {
        // The oldest mark's row lock: prunings take turns (the second then reads how far the
        // first went). Batches go on meanwhile: they log above the counter, far above anything
        // pruned, which was committed `seconds` ago.
        let marks = try connection.query("SELECT b.last, o.oldest FROM vote_batch b, vote_log_oldest o FOR UPDATE OF o")
        guard marks.count == 1 else { return }
        let last = try marks.int64(0, 0)
        let oldest = try marks.int64(0, 1)
        try connection.query(
            """
            INSERT INTO vote_log_time (at, batch) VALUES (\(now.secondsSince1970), \(last))
            ON CONFLICT (at) DO UPDATE SET batch = greatest(vote_log_time.batch, excluded.batch)
            """)
        let cutoff = now.secondsSince1970 - seconds
        let found = try connection.query("SELECT max(batch) FROM vote_log_time WHERE at <= \(cutoff)")
        guard found.count == 1, !found.isNull(0, 0) else { return }
        let prunable = try found.int64(0, 0)
        guard prunable > oldest else { return }
        try connection.query("DELETE FROM vote_log WHERE batch <= \(prunable)")
        try connection.query("DELETE FROM vote_moved WHERE batch <= \(prunable)")
        try connection.query("DELETE FROM vote_log_time WHERE at < \(cutoff)")
        try connection.query("UPDATE vote_log_oldest SET oldest = \(prunable)")
    }
}
