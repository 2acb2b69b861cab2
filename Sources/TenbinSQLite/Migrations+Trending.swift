import TenbinKit

extension Migrations {
    /// Schema 17's trending score (``Trending``): a column of the poster row, written by the
    /// vote statement with the counts (``SQLiteSession/voteUpdate``), 0 until a poster's first
    /// vote; and an index like `poster_voted`, over the voted posters only (unvoted ones are read
    /// from `poster_unvoted`, as in popular order).
    static let trendingSchema = """
        ALTER TABLE poster ADD COLUMN trend INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX poster_trending ON poster(trend DESC, id DESC) WHERE trend > 0;

        """

    /// Migration 14: the score, seeded from each voted poster's timeline (every bucket's votes
    /// at its start: the log of the sum of their weights, computed around the largest so no
    /// power overflows), and for a voted poster without buckets from its counts at its
    /// creation time.
    static let trendingMigration =
        trendingSchema + """
            WITH weight AS (
                SELECT poster_id, (log2(good1 + good2) + start / \(Double(Trending.halfLife))) * \(Trending.unitsPerHalfLife) AS w
                FROM vote_bucket WHERE good1 + good2 > 0
            ), top AS (
                SELECT poster_id, max(w) AS m FROM weight GROUP BY poster_id
            ), score AS (
                SELECT weight.poster_id, top.m + \(Trending.unitsPerHalfLife)
                    * log2(sum(pow(2, max(-\(Trending.negligible), (weight.w - top.m) / \(Trending.unitsPerHalfLife))))) AS s
                FROM weight JOIN top ON top.poster_id = weight.poster_id GROUP BY weight.poster_id
            )
            UPDATE poster SET trend = max(1, CAST(floor(0.5 + score.s) AS INTEGER)) FROM score WHERE score.poster_id = poster.id;
            UPDATE poster SET trend = max(1, CAST(floor(0.5 + (log2(good1 + good2) + created_at / \(Double(Trending.halfLife)))
                * \(Trending.unitsPerHalfLife)) AS INTEGER))
            WHERE trend <= 0 AND good1 + good2 > 0;

            """
}
