import TenbinKit

/// The vote log (schema 11): one row per poster per committed vote batch, written in the
/// batch's transaction, so a walk through popular order can rank by the votes as of its first
/// page (``VoteSnapshot``). A row's `seq` is its mark: SQLite commits one writer at a time, so
/// every row a read does not see has a higher `seq` than every row it does.
extension SQLiteSession {
    /// Schema step 11. `AUTOINCREMENT`, so a `seq` is never handed out twice, even once the
    /// newest rows are gone: a walk's mark must never cover a row written after it.
    static let voteLogSchema = """
        CREATE TABLE vote_log (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            poster_id INTEGER NOT NULL,
            votes INTEGER NOT NULL
        );

        """

    /// Logs `votes` added to poster `id`.
    func logVotes(id: Int64, votes: Int) throws {
        try db.statement("INSERT INTO vote_log (poster_id, votes) VALUES (?, ?)").bind(id, votes).run()
    }

    func voteSnapshot(mark: [Int64]?) throws -> VoteSnapshot? {
        guard let mark else {
            // The last `seq` handed out; this read sees every row up to it and none after.
            let last = try db.statement("SELECT seq FROM sqlite_sequence WHERE name = 'vote_log'").first { $0.int64(0) } ?? 0
            return VoteSnapshot(mark: [last], moved: [:])
        }
        guard mark.count == 1 else { return nil }
        let statement = try db.statement(
            """
            SELECT p.id, p.good1 + p.good2 - d.votes
            FROM (SELECT poster_id, sum(votes) AS votes FROM vote_log WHERE seq > ? GROUP BY poster_id) d
            JOIN poster p ON p.id = d.poster_id
            """
        ).bind(mark[0])
        var moved: [Int64: Int] = [:]
        while try statement.step() { moved[statement.int64(0)] = statement.int(1) }
        return VoteSnapshot(mark: mark, moved: moved)
    }
}
