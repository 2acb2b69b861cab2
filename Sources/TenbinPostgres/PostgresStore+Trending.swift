import Glibc
import TenbinKit

/// Trending order in PostgreSQL (schema step 13): each poster's score (``Trending``) in a
/// column of its row, written by the vote statement with the counts, and an index like
/// popular's, so a trending page is one index range scan after a (score, id) cursor.
extension PostgresStore {
    /// The score's fixed point and the bound on a power, as SQL literals.
    private static let units = "\(Trending.unitsPerHalfLife)::float8"
    private static let negligible = "\(Trending.negligible)::float8"

    /// The weight in score units of `count` votes (an SQL expression) cast at `seconds` since
    /// 1970 (an SQL expression): ``Trending/weight(count:at:)``.
    static func trendWeightSQL(count: String, seconds: String) -> String {
        "((ln(greatest(\(count), 1)::float8) / ln(2::float8) + (\(seconds))::float8 / \(Double(Trending.halfLife))::float8) * \(units))"
    }

    /// The score `score` (an SQL expression) with the weight `weight` added, rounded half up
    /// and at least 1: ``Trending/adding(_:to:)``. The power is bounded below (PostgreSQL
    /// reports an underflow where SQLite and Swift give 0).
    static func trendAddingSQL(score: String, weight: String) -> String {
        """
        greatest(1, floor(0.5 + CASE WHEN \(score) <= 0 THEN \(weight) ELSE greatest(\(score), \(weight)) + \(units)
            * ln(1 + power(2::float8, greatest(-\(negligible), -abs(\(score) - \(weight)) / \(units)))) / ln(2::float8) END))::bigint
        """
    }

    /// Schema step 13: the column (0 for every poster until its first vote), seeded from each
    /// voted poster's timeline (every bucket's votes at its start, summed around the largest
    /// weight so no power overflows) or, without buckets, from its counts at its creation;
    /// then the index.
    static let trendingSchemaSQL = """
        ALTER TABLE poster ADD COLUMN trend bigint NOT NULL DEFAULT 0;
        WITH weight AS (
            SELECT poster_id, \(trendWeightSQL(count: "good1 + good2", seconds: "start")) AS w FROM vote_bucket WHERE good1 + good2 > 0
        ), top AS (
            SELECT poster_id, max(w) AS m FROM weight GROUP BY poster_id
        ), score AS (
            SELECT weight.poster_id, top.m + \(units)
                * ln(sum(power(2::float8, greatest(-\(negligible), (weight.w - top.m) / \(units))))) / ln(2::float8) AS s
            FROM weight JOIN top ON top.poster_id = weight.poster_id GROUP BY weight.poster_id, top.m
        )
        UPDATE poster SET trend = greatest(1, floor(0.5 + score.s))::bigint FROM score WHERE score.poster_id = poster.id;
        UPDATE poster SET trend = greatest(1, floor(0.5 + \(trendWeightSQL(count: "good1 + good2", seconds: "created_at"))))::bigint
        WHERE trend <= 0 AND good1 + good2 > 0;
        CREATE INDEX poster_trending ON poster (trend DESC, id DESC);
        ANALYZE poster
        """

    /// The vote statement's score update (``PostgresStore/addVotes(_:at:on:prepared:)``):
    /// `SET … trend = …`, or nothing under `TENBIN_BENCH_NO_TRENDING=1` (`make bench`'s
    /// comparison of what a vote cost before trending order).
    static let trendVoteAssignment =
        getenv("TENBIN_BENCH_NO_TRENDING").map { String(cString: $0) == "1" } ?? false
        ? "" : ", trend = " + trendAddingSQL(score: "poster.trend", weight: "delta.w")
}
