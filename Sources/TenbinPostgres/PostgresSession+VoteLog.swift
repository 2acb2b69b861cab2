import TenbinKit

/// The vote log (schema step 7): one row per poster per committed vote batch, written by the
/// batch's statement, so a walk through popular order can rank by the votes as of its first
/// page (``VoteSnapshot``).
///
/// A row carries the id of the transaction that wrote it (`xid`). Transactions do not commit
/// in the order of their ids, so a walk's mark is its first read's snapshot `xmin`: every
/// transaction with a lower id had ended when the walk began, and any later one may not have.
/// The walk then ranks as of the votes of the transactions below its mark, a fixed state
/// (nothing below it can still commit), rolling back whatever a page sees from the ones above.
extension PostgresSession {
    /// Schema step 7.
    static let voteLogSchemaSQL = """
        CREATE TABLE vote_log (
            xid bigint NOT NULL,
            poster_id bigint NOT NULL,
            votes bigint NOT NULL
        );
        CREATE INDEX vote_log_xid ON vote_log (xid)
        """

    /// The statement logging a vote batch, as a CTE of the batch's UPDATE (`voted`, the posters
    /// updated, and `delta`, the votes added): a data-modifying CTE runs whether or not the
    /// statement reads it.
    static let logVotesCTE = """
        logged AS (
            INSERT INTO vote_log (xid, poster_id, votes)
            SELECT pg_current_xact_id()::text::bigint, voted.id, delta.good1 + delta.good2 FROM voted JOIN delta ON delta.id = voted.id)
        """

    func voteSnapshot(mark: Int64?) throws -> VoteSnapshot {
        let start: PostgresQuery =
            if let mark { "SELECT \(mark)::bigint AS x" } else { "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS x" }
        let rows = try select(
            """
            WITH m AS (\(start)),
            d AS (SELECT l.poster_id, sum(l.votes)::bigint AS votes FROM vote_log l, m WHERE l.xid >= m.x GROUP BY l.poster_id)
            SELECT m.x, p.id, p.votes - d.votes FROM m LEFT JOIN (d JOIN poster p ON p.id = d.poster_id) ON true
            """)
        guard rows.count > 0 else {
            throw PostgresError(kind: .internal, sqlState: nil, message: "the vote snapshot read no row", target: connection.target.description)
        }
        var moved: [Int64: Int] = [:]
        for row in 0..<rows.count where !rows.isNull(row, 1) {
            moved[try rows.int64(row, 1)] = try rows.int(row, 2)
        }
        return VoteSnapshot(mark: try rows.int64(0, 0), moved: moved)
    }
}
