extension Migrations {
    /// Schema 10's timelines (see SQLiteSession+Timeline.swift): each poster's votes per
    /// bucket, keyed by poster and the bucket's start in seconds since 1970 (a minute's, or an
    /// hour's or a day's once compaction folded it); an index by start, so compaction reads
    /// only the buckets it folds; and how far each fold has gone. Deleting a poster deletes its
    /// buckets (the foreign key's cascade).
    static let timelineSchema = """
        CREATE TABLE vote_bucket (
            poster_id INTEGER NOT NULL REFERENCES poster(id) ON DELETE CASCADE,
            start INTEGER NOT NULL,
            good1 INTEGER NOT NULL,
            good2 INTEGER NOT NULL,
            PRIMARY KEY (poster_id, start)
        ) WITHOUT ROWID;
        CREATE INDEX vote_bucket_start ON vote_bucket(start);
        CREATE TABLE timeline_fold (
            width INTEGER PRIMARY KEY NOT NULL,
            done_before INTEGER NOT NULL
        );
        INSERT INTO timeline_fold (width, done_before) VALUES (3600, 0), (86400, 0);

        """

    /// Migration 10: the timelines, and for every poster with votes one bucket holding its
    /// counts so far at the minute of the upgrade (a store keeps no time of a poster's last
    /// vote), so every timeline adds up to its poster's counts from the start.
    static let timelineMigration =
        timelineSchema + """
            INSERT INTO vote_bucket (poster_id, start, good1, good2)
            SELECT id, CAST(strftime('%s', 'now') AS INTEGER) / 60 * 60, good1, good2 FROM poster WHERE good1 + good2 > 0;

            """
}
