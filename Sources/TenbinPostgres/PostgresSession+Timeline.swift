import TenbinKit

extension PostgresStore {
    /// Schema step 10: each poster's votes per bucket, keyed by poster and the bucket's start in
    /// seconds since 1970 (a minute's, or an hour's or a day's once compaction folded it); an
    /// index by start, so compaction reads only the buckets it folds; how far each fold has
    /// gone; and for every poster with votes one bucket holding its counts so far, at the
    /// minute of the upgrade (no time of a poster's last vote is kept). Deleting a poster
    /// deletes its buckets (the foreign key's cascade).
    static let timelineSchemaSQL = """
        CREATE TABLE vote_bucket (
            poster_id bigint NOT NULL REFERENCES poster(id) ON DELETE CASCADE,
            start bigint NOT NULL,
            good1 bigint NOT NULL,
            good2 bigint NOT NULL,
            PRIMARY KEY (poster_id, start)
        );
        CREATE INDEX vote_bucket_start ON vote_bucket(start);
        CREATE TABLE timeline_fold (
            width bigint PRIMARY KEY,
            done_before bigint NOT NULL
        );
        INSERT INTO timeline_fold (width, done_before) VALUES (3600, 0), (86400, 0);
        INSERT INTO vote_bucket (poster_id, start, good1, good2)
        SELECT id, floor(extract(epoch FROM now()) / 60)::bigint * 60, good1, good2 FROM poster WHERE good1 + good2 > 0;
        """
}

/// Timelines in PostgreSQL: a vote batch's statement adds to the buckets too
/// (``PostgresStore/addVotes(_:at:on:prepared:)``); compaction folds old buckets, each fold
/// starting where the last one stopped.
extension PostgresSession {
    func timelineRows(posters ids: ClosedRange<Int64>) throws -> [TimelineRow] {
        let rows = try connection.query(
            """
            SELECT poster_id, start, good1, good2 FROM vote_bucket WHERE poster_id BETWEEN \(ids.lowerBound) AND \(ids.upperBound)
            ORDER BY poster_id, start
            """)
        return try (0..<rows.count).map { row in
            TimelineRow(
                posterID: try rows.int64(row, 0),
                bucket: TimelineBucket(
                    start: Timestamp(secondsSince1970: try rows.int64(row, 1)), good1: try rows.int(row, 2), good2: try rows.int(row, 3)))
        }
    }

    func insertTimelineRows(_ rows: [TimelineRow]) throws {
        guard !rows.isEmpty else { return }
        try connection.query(
            """
            INSERT INTO vote_bucket (poster_id, start, good1, good2)
            SELECT * FROM unnest(\(rows.map(\.posterID))::bigint[], \(rows.map(\.bucket.start.secondsSince1970))::bigint[], \
            \(rows.map(\.bucket.good1))::bigint[], \(rows.map(\.bucket.good2))::bigint[])
            ON CONFLICT (poster_id, start) DO UPDATE SET good1 = vote_bucket.good1 + excluded.good1, good2 = vote_bucket.good2 + excluded.good2
            """)
    }

    func compactTimelines(now: Timestamp) throws {
        for fold in Timeline.folds(at: now) {
            // The fold's row lock makes two servers' compactions take turns; the second then
            // reads (read committed) how far the first went and finds nothing left to fold.
            let done = try connection.query("SELECT done_before FROM timeline_fold WHERE width = \(fold.width) FOR UPDATE")
            guard done.count == 1, try done.int64(0, 0) < fold.before else { continue }
            let width = PostgresQuery.Shared(fold.width)
            // One statement: the buckets summed are exactly the buckets deleted, even if a
            // vote dated far in the past wrote to one meanwhile.
            try connection.query(
                """
                WITH gone AS (
                    DELETE FROM vote_bucket WHERE start >= \(try done.int64(0, 0)) AND start < \(fold.before) AND start % \(width) <> 0
                    RETURNING poster_id, start - start % \(width) AS start, good1, good2)
                INSERT INTO vote_bucket (poster_id, start, good1, good2)
                SELECT poster_id, start, sum(good1), sum(good2) FROM gone GROUP BY poster_id, start ORDER BY poster_id, start
                ON CONFLICT (poster_id, start) DO UPDATE SET good1 = vote_bucket.good1 + excluded.good1, good2 = vote_bucket.good2 + excluded.good2
                """)
            try connection.query("UPDATE timeline_fold SET done_before = \(fold.before) WHERE width = \(fold.width)")
        }
    }
}
