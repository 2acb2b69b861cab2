import TenbinKit

/// The vote log (schema step 8): one row per poster per committed vote batch, written by the
/// batch's statement, so a walk through popular order can rank by the votes as of its first
/// page (``VoteSnapshot``).
///
/// A row carries the id of the transaction that wrote it (`xid`). Transactions do not commit in
/// the order of their ids, so a walk's mark is its first read's snapshot: `xmin`, `xmax` and the
/// transactions running then (`pg_current_snapshot()`); a later page counts as moved exactly the
/// rows that snapshot does not see (`pg_visible_in_snapshot`). A snapshot with more than
/// ``markRunningLimit`` transactions running (in any database of the cluster) would make a long
/// cursor: the mark is then `xmin` alone (as `xmin:xmin:`), a fixed state a little older than the
/// first page's read (nothing below `xmin` can still commit), by which that page ranks too.
extension PostgresSession {
    /// Schema step 8.
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

    /// The most running transactions a mark lists.
    static let markRunningLimit = PageCursor.longestMark - 2

    func voteSnapshot(mark: [Int64]?) throws -> VoteSnapshot? {
        guard let mark else {
            let text = try select("SELECT pg_current_snapshot()::text").text(0, 0)
            guard let (snapshot, exact) = Self.mark(ofSnapshot: text) else {
                throw PostgresError(
                    kind: .internal, sqlState: nil, message: "unexpected snapshot '\(text.prefix(40))'",
                    target: connection.target.description)
            }
            // This read's own snapshot: nothing it sees moved after it, unless the mark had to
            // fall back to `xmin` alone.
            return exact ? VoteSnapshot(mark: snapshot, moved: [:]) : try moved(since: snapshot)
        }
        guard Self.isMark(mark) else { return nil }
        return try moved(since: mark)
    }

    /// The posters voted for by transactions `mark` does not see, with their votes as of it.
    private func moved(since mark: [Int64]) throws -> VoteSnapshot {
        let snapshot = "\(mark[0]):\(mark[1]):" + mark.dropFirst(2).map(String.init).joined(separator: ",")
        let rows = try select(
            """
            SELECT p.id, p.votes - d.votes FROM (
                SELECT poster_id, sum(votes)::bigint AS votes FROM vote_log
                WHERE xid >= \(mark[0]) AND NOT pg_visible_in_snapshot(xid::text::xid8, \(snapshot)::pg_snapshot) GROUP BY poster_id
            ) d JOIN poster p ON p.id = d.poster_id
            """)
        var moved: [Int64: Int] = [:]
        for row in 0..<rows.count { moved[try rows.int64(row, 0)] = try rows.int(row, 1) }
        return VoteSnapshot(mark: mark, moved: moved)
    }

    /// The mark of a snapshot's text (`xmin:xmax:xip,…`): its numbers (exact), or `xmin`
    /// twice when more than ``markRunningLimit`` transactions were running (not exact).
    static func mark(ofSnapshot text: String) -> (mark: [Int64], exact: Bool)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let xmin = Int64(parts[0]), let xmax = Int64(parts[1]) else { return nil }
        let running = parts[2].split(separator: ",").compactMap { Int64($0) }
        guard running.count <= markRunningLimit else { return ([xmin, xmin], false) }
        let mark = [xmin, xmax] + running
        return isMark(mark) ? (mark, true) : nil
    }

    /// Whether `mark` is a snapshot's: `xmin` ≤ `xmax`, the running transactions ascending
    /// between them, at most ``markRunningLimit`` of them.
    static func isMark(_ mark: [Int64]) -> Bool {
        guard mark.count >= 2, mark.count <= markRunningLimit + 2, mark[0] <= mark[1] else { return false }
        var previous = mark[0] - 1
        for xid in mark.dropFirst(2) {
            guard xid > previous, xid < mark[1] else { return false }
            previous = xid
        }
        return true
    }
}
