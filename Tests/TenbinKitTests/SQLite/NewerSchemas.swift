/// What SQLite schemas 10 and later added, taken away again: the SQL a test runs before it
/// rewinds a store to an older schema (a test going below 10 then undoes its own schema's
/// steps). Every new schema step adds its undo here.
enum NewerSchemas {
    /// Each schema from 10 on and the SQL that takes away what it added, oldest first.
    static let steps: [(schema: Int, undo: String)] = [
        (10, "ALTER TABLE poster DROP COLUMN alt1;\nALTER TABLE poster DROP COLUMN alt2;\n"),
        (11, "DROP TABLE report;\nDROP TABLE report_cleared;\nDROP TABLE poster_hidden;\nDROP TABLE audit;\n"),
        (12, "DROP TABLE blocked_image;\nALTER TABLE blob DROP COLUMN phash;\n"),
        (13, "DROP TABLE vote_bucket;\nDROP TABLE timeline_fold;\n"),
        (14, "DROP TABLE post_proof_key;\nDROP TABLE post_proof_spent;\n"),
        (15, "DROP TABLE search_reading;\n"),
        (16, "DROP TABLE vote_batch;\nDROP TABLE vote_log;\nDROP TABLE vote_moved;\nDROP TABLE vote_log_time;\n"),
        (17, "DROP INDEX poster_trending;\nALTER TABLE poster DROP COLUMN trend;\n"),
        (
            18,
            "CREATE INDEX vote_log_poster ON vote_log(poster_id, batch);\n"
                + "CREATE TABLE vote_moved (poster_id INTEGER PRIMARY KEY NOT NULL, batch INTEGER NOT NULL);\n"
                + "CREATE INDEX vote_moved_batch ON vote_moved(batch);\n"
        ),
        (19, "ALTER TABLE search_segment DROP COLUMN top;\n"),
    ]

    /// The SQL that takes away what the schemas after `version` added, newest first.
    static func undo(after version: Int) -> String {
        steps.filter { $0.schema > version }.reversed().map(\.undo).joined()
    }

    /// Everything schemas 10 and later added.
    static var undo: String { undo(after: 9) }
}
