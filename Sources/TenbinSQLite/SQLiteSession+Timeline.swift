import TenbinKit

/// Timelines in SQLite (schema 13, `Migrations+Timelines.swift`): a vote adds to its poster's
/// minute bucket in the statement after the one adding to its counts, in the same transaction;
/// compaction folds old buckets, each fold starting where the last one stopped
/// (`timeline_fold`), so it reads only buckets that aged since.
extension SQLiteSession {
    /// The statement adding a delta to a bucket (a new one, or one already there).
    static let bucketUpsert = """
        INSERT INTO vote_bucket (poster_id, start, good1, good2) VALUES (?, ?, ?, ?)
        ON CONFLICT (poster_id, start) DO UPDATE SET good1 = good1 + excluded.good1, good2 = good2 + excluded.good2
        """

    /// Adds `good1` and `good2` to the bucket of poster `id` starting at `start`.
    func addToBucket(id: Int64, start: Int64, good1: Int, good2: Int) throws {
        try db.statement(Self.bucketUpsert).bind(id, start, good1, good2).run()
    }

    func timelineRows(posters ids: ClosedRange<Int64>) throws -> [TimelineRow] {
        try db.statement(
            "SELECT poster_id, start, good1, good2 FROM vote_bucket WHERE poster_id BETWEEN ? AND ? ORDER BY poster_id, start"
        ).bind(ids.lowerBound, ids.upperBound).map {
            TimelineRow(
                posterID: $0.int64(0),
                bucket: TimelineBucket(start: Timestamp(secondsSince1970: $0.int64(1)), good1: $0.int(2), good2: $0.int(3)))
        }
    }

    func insertTimelineRows(_ rows: [TimelineRow]) throws {
        for row in rows {
            try addToBucket(id: row.posterID, start: row.bucket.start.secondsSince1970, good1: row.bucket.good1, good2: row.bucket.good2)
        }
    }

    func compactTimelines(now: Timestamp) throws {
        for fold in Timeline.folds(at: now) {
            guard
                let done = try db.statement("SELECT done_before FROM timeline_fold WHERE width = ?").bind(fold.width).first({ $0.int64(0) }
                ),
                done < fold.before
            else { continue }
            // Write transactions exclude each other here (BEGIN IMMEDIATE), so the buckets
            // summed are the buckets deleted. Both folds' bounds are multiples of the width,
            // so every folded bucket lands inside [done, before) too.
            try db.statement(
                """
                INSERT INTO vote_bucket (poster_id, start, good1, good2)
                SELECT poster_id, start - start % ?1, sum(good1), sum(good2) FROM vote_bucket
                WHERE start >= ?2 AND start < ?3 AND start % ?1 != 0 GROUP BY poster_id, start - start % ?1
                ON CONFLICT (poster_id, start) DO UPDATE SET good1 = good1 + excluded.good1, good2 = good2 + excluded.good2
                """
            ).bind(fold.width, done, fold.before).run()
            try db.statement("DELETE FROM vote_bucket WHERE start >= ?2 AND start < ?3 AND start % ?1 != 0").bind(
                fold.width, done, fold.before
            )
            .run()
            try db.statement("UPDATE timeline_fold SET done_before = ? WHERE width = ?").bind(fold.before, fold.width).run()
        }
    }
}
