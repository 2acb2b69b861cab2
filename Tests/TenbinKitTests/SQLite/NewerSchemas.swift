/// What SQLite schemas 10 and later added, taken away again: the SQL a test runs before it
/// rewinds a store to schema 9 or earlier (each such test then undoes its own schema's
/// steps). Every new schema step adds its undo here.
enum NewerSchemas {
    static let undo = """
        DROP INDEX poster_trending;
        ALTER TABLE poster DROP COLUMN trend;
        DROP TABLE vote_bucket;
        DROP TABLE timeline_fold;
        DROP TABLE blocked_image;
        ALTER TABLE blob DROP COLUMN phash;
        DROP TABLE report;
        DROP TABLE report_cleared;
        DROP TABLE poster_hidden;
        DROP TABLE audit;
        ALTER TABLE poster DROP COLUMN alt1;
        ALTER TABLE poster DROP COLUMN alt2;

        """
}
