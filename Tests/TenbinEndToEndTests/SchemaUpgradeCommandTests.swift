import Foundation
import Testing

/// A store written at every earlier schema version opens with today's `tenbin`, upgrades in
/// place, passes `tenbin check` and answers `list`, `show` and `search` exactly as a store
/// made by today's version does.
///
/// The earlier stores are made from one real store (real blobs, imported, voted, edited,
/// with its newest poster deleted) by rewriting its database with `sqlite3` into the tables
/// each released schema had: the CREATE statements below are those versions' own, kept here
/// as fixtures because a released schema never changes.
@Suite(.ownThreads, .timeLimit(.minutes(10))) struct SchemaUpgradeCommandTests {
    private let samples = "\(Tenbin.root)/SampleImages"

    /// Schemas 1–3 referenced blobs by their hex digest: today's tables turned back into those.
    static let digestReferences = """
        CREATE TABLE blob_old (
            digest TEXT PRIMARY KEY NOT NULL,
            format TEXT NOT NULL CHECK (format IN ('jpeg', 'png')),
            width INTEGER NOT NULL,
            height INTEGER NOT NULL,
            bytes INTEGER NOT NULL,
            source TEXT
        ) WITHOUT ROWID;
        INSERT INTO blob_old SELECT digest, format, width, height, bytes, source FROM blob;
        CREATE TABLE upload_old (
            source TEXT NOT NULL,
            options TEXT NOT NULL,
            digest TEXT NOT NULL REFERENCES blob(digest) ON DELETE CASCADE,
            PRIMARY KEY (source, options)
        ) WITHOUT ROWID;
        INSERT INTO upload_old SELECT u.source, u.options, b.digest FROM upload u JOIN blob b ON b.id = u.blob_id;
        CREATE TABLE poster_old (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            contents TEXT NOT NULL,
            good1 INTEGER NOT NULL DEFAULT 0,
            good2 INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL,
            image1 TEXT NOT NULL REFERENCES blob(digest),
            image2 TEXT NOT NULL REFERENCES blob(digest)
        );
        INSERT INTO poster_old SELECT p.id, p.contents, p.good1, p.good2, p.created_at, b1.digest, b2.digest
            FROM poster p JOIN blob b1 ON b1.id = p.image1 JOIN blob b2 ON b2.id = p.image2;
        DELETE FROM sqlite_sequence WHERE name = 'poster_old';
        INSERT INTO sqlite_sequence (name, seq) SELECT 'poster_old', seq FROM sqlite_sequence WHERE name = 'poster';
        DROP TABLE upload;
        DROP TABLE poster;
        DROP TABLE blob;
        ALTER TABLE blob_old RENAME TO blob;
        ALTER TABLE upload_old RENAME TO upload;
        ALTER TABLE poster_old RENAME TO poster;
        CREATE INDEX upload_digest ON upload(digest);
        CREATE INDEX poster_popular ON poster(good1 + good2 DESC, id DESC);
        CREATE INDEX poster_identity ON poster(image1, image2, contents);
        CREATE INDEX poster_image2 ON poster(image2);
        """

    /// Schema 4's identity index held the contents themselves: today's turned back into it.
    static let contentsIdentity = """
        DROP INDEX poster_identity;
        ALTER TABLE poster DROP COLUMN contents_hash;
        CREATE INDEX poster_identity ON poster(image1, image2, contents);
        """

    /// Schema 5's index table kept FTS5's per-document sizes: today's made again that way
    /// (empty: migration 6 refills it from the stored keys, so an upgrade that did not would
    /// find nothing).
    static let sizedIndex = """
        DROP TABLE search_gram;
        CREATE VIRTUAL TABLE search_gram USING fts5(grams, tokenize = 'ascii', detail = 'none', content = '');
        INSERT INTO search_gram (search_gram, rank) VALUES ('hashsize', 16777216);
        INSERT INTO search_gram (search_gram, rank) VALUES ('automerge', 16);
        """

    /// Schema 8 merged the index's segments whole, in the write that completed a level: it
    /// had no table of merges under way (and this store, being small, has none under way).
    static let mergesInSteps = """
        DROP TABLE search_merge;
        """

    /// Schemas 2–7's search index was an FTS5 table (schema 6's form here; empty: migration 8
    /// builds today's index from the stored keys, so an upgrade that did not would find
    /// nothing).
    static let fts5Index = """
        DROP TABLE search_merge;
        DROP TABLE search_posting;
        DROP TABLE search_segment;
        DROP TABLE search_stale;
        CREATE VIRTUAL TABLE search_gram USING fts5(grams, tokenize = 'ascii', detail = 'none', content = '', columnsize = 0);
        INSERT INTO search_gram (search_gram, rank) VALUES ('hashsize', 16777216);
        INSERT INTO search_gram (search_gram, rank) VALUES ('automerge', 16);
        """

    /// Schemas 1–6 served popular order from one index over all posters: today's two turned
    /// back into it.
    static let onePopularIndex = """
        DROP INDEX poster_voted;
        DROP INDEX poster_unvoted;
        CREATE INDEX poster_popular ON poster(good1 + good2 DESC, id DESC);
        """

    /// Schemas 1–9 had no alt text columns.
    static let noAltTexts = """
        ALTER TABLE poster DROP COLUMN alt1;
        ALTER TABLE poster DROP COLUMN alt2;

        """

    /// Schemas 1-10 had no moderation tables.
    static let noModeration = """
        DROP TABLE report;
        DROP TABLE report_cleared;
        DROP TABLE poster_hidden;
        DROP TABLE audit;

        """

    /// Schemas 1-11 had no perceptual hashes and no image blocklist.
    static let noBlocklist = """
        DROP TABLE blocked_image;
        ALTER TABLE blob DROP COLUMN phash;

        """

    /// Schemas 1-12 kept no timelines (schema 13 made them).
    static let noTimelines = """
        DROP TABLE vote_bucket;
        DROP TABLE timeline_fold;

        """

    /// The schema that added proof of work for posting (its number in one place: the step's
    /// place in `Migrations.steps`).
    static let postProofSchema = 14

    /// Schemas before ``postProofSchema`` kept no post-proof key or spent challenges.
    static let noPostProof = """
        DROP TABLE post_proof_key;
        DROP TABLE post_proof_spent;

        """

    /// Schemas before 15 had no readings to give in steps (schema 15 added them).
    static let noReadings = """
        DROP TABLE search_reading;

        """

    /// Schema 16 taken away: the vote log (after schema 18's undo put back what 16 had more).
    static let noVoteLog = """
        DROP TABLE vote_batch;
        DROP TABLE vote_log;
        DROP TABLE vote_moved;
        DROP TABLE vote_log_time;

        """

    /// Schema 17 taken away: trending order.
    static let noTrending = """
        DROP INDEX poster_trending;
        ALTER TABLE poster DROP COLUMN trend;

        """

    /// Schema 18 taken away: the vote log indexed by poster, and each poster's last batch.
    static let voteLogByPoster = """
        CREATE INDEX vote_log_poster ON vote_log(poster_id, batch);
        CREATE TABLE vote_moved (poster_id INTEGER PRIMARY KEY NOT NULL, batch INTEGER NOT NULL);
        CREATE INDEX vote_moved_batch ON vote_moved(batch);

        """

    /// Schema 19 taken away: the search segments' tops.
    static let noSegmentTops = """
        ALTER TABLE search_segment DROP COLUMN top;

        """

    /// Each schema from 10 on, and the SQL that takes away what it added.
    static let addedSince9: [(schema: Int, undo: String)] = [
        (10, noAltTexts), (11, noModeration), (12, noBlocklist), (13, noTimelines), (postProofSchema, noPostProof), (15, noReadings),
        (16, noVoteLog), (17, noTrending), (18, voteLogByPoster), (19, noSegmentTops),
    ]
    /// Today's schema.
    static var latestSchema: Int { addedSince9.last?.schema ?? 9 }

    /// The SQL that turns today's database into one at `version`.
    static func downgrade(to version: Int) -> String {
        // What the schemas after `version` from 10 on added, gone, newest first.
        let newer = addedSince9.filter { $0.schema > version }.reversed().map(\.undo).joined()
        if version >= 9 { return "BEGIN;\n" + newer + "\nPRAGMA user_version = \(version);\nCOMMIT;\n" }
        if version == 8 { return "BEGIN;\n" + newer + mergesInSteps + "\nPRAGMA user_version = 8;\nCOMMIT;\n" }
        if version == 7 { return "BEGIN;\n" + newer + fts5Index + "\nPRAGMA user_version = 7;\nCOMMIT;\n" }
        if version == 6 { return "BEGIN;\n" + newer + fts5Index + onePopularIndex + "\nPRAGMA user_version = 6;\nCOMMIT;\n" }
        if version == 5 {
            return "BEGIN;\n" + newer + fts5Index + onePopularIndex + sizedIndex + "\nPRAGMA user_version = 5;\nCOMMIT;\n"
        }
        if version == 4 {
            return "BEGIN;\n" + newer + fts5Index + onePopularIndex + contentsIdentity + "\nPRAGMA user_version = 4;\nCOMMIT;\n"
        }
        var sql = "PRAGMA foreign_keys = OFF;\nBEGIN;\n" + newer + fts5Index + digestReferences
        if version <= 2 {
            // Schema 2's index had FTS5's default segment buffer (migration 3 empties and
            // refills the index, so its tokens do not matter here).
            sql += "\nDELETE FROM search_gram_config WHERE k = 'hashsize';"
        }
        if version == 1 {
            sql += "\nDROP TABLE search_gram;\nDROP TABLE search_key;"
        }
        return sql + "\nPRAGMA user_version = \(version);\nCOMMIT;\n"
    }

    /// What a user sees of a store: both feeds, every poster, and a set of searches.
    private func answers(_ store: String) throws -> [String] {
        var runs: [[String]] = [
            ["list", "--json", "--limit", "100"], ["list", "--sort", "popular", "--json", "--limit", "100"], ["show", "3", "--json"],
        ]
        for query in ["きのこ", "派", "東京", "ねこ", "夏 海", "ＡＢＣ", "#うどん", "京", "upgrade", "ｱｯﾌﾟ", "どっち", "空"] {
            runs.append(["search", query, "--json"])
            runs.append(["search", query, "--sort", "popular", "--json"])
        }
        return try runs.map { arguments in
            let run = try Tenbin.run(arguments, store: store)
            return "\(arguments.joined(separator: " ")) → \(run.status) \(run.stdout) \(run.stderr)"
        }
    }

    @Test func storesAtEveryEarlierSchemaUpgradeInPlaceCheckCleanAndAnswerAsToday() throws {
        let reference = try ScratchFolder()
        let store = "\(reference.path)/store"
        #expect(try Tenbin.run(["import", samples], store: store).status == 0)
        let manifest = "\(reference.path)/more.jsonl"
        let lines = [
            ##"{"image1": "\##(samples)/01-cats-or-dogs/1-cat.jpg", "image2": "\##(samples)/09-sea-or-mountain/sea.jpg", "contents": "アップグレード upgrade　テスト", "hashtags": ["#ねこ", "海"]}"##,
            #"{"image1": "\#(samples)/07-tokyo/tower.JPG", "image2": "\#(samples)/01-cats-or-dogs/2-dog.jpg", "contents": "京都と東京"}"#,
            #"{"image1": "\#(samples)/07-tokyo/tower.JPG", "image2": "\#(samples)/01-cats-or-dogs/2-dog.jpg", "contents": "the newest, deleted"}"#,
        ]
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: manifest))
        #expect(try Tenbin.run(["import", manifest], store: store).status == 0)
        for (id, side, times) in [(3, "1", "4"), (11, "2", "2"), (8, "1", "1")] {
            #expect(try Tenbin.run(["vote", "\(id)", side, "--times", times], store: store).status == 0)
        }
        #expect(try Tenbin.run(["edit", "3", "--text", "どっちの写真？", "--tag", "写真"], store: store).status == 0)
        // The highest id is gone: an upgrade must not hand it out again.
        #expect(try Tenbin.run(["delete", "13"], store: store).status == 0)
        let expected = try answers(store)
        #expect(expected.count == 27)

        for version in 1..<Self.latestSchema {
            let old = "\(reference.path)/schema-\(version)"
            try FileManager.default.copyItem(atPath: store, toPath: old)
            let rewrite = try Shell.capture(["sqlite3", "\(old)/tenbin.sqlite", Self.downgrade(to: version)])
            #expect(rewrite.status == 0 && rewrite.stderr == "", "\(rewrite.stderr)")
            let before = try Shell.capture([
                "sqlite3", "\(old)/tenbin.sqlite", "PRAGMA user_version; SELECT typeof(image1) FROM poster LIMIT 1;",
            ])
            #expect(before.stdout == "\(version)\n\(version >= 4 ? "integer" : "text")\n")

            let check = try Tenbin.run(["check", "--json"], store: old)
            #expect(check.status == 0, "schema \(version): \(check.stdout) \(check.stderr)")
            #expect(check.stdout.contains(#""ok": true"#), "schema \(version): \(check.stdout)")
            let after = try Shell.capture([
                "sqlite3", "\(old)/tenbin.sqlite",
                "PRAGMA user_version; SELECT typeof(image1) FROM poster LIMIT 1; SELECT count(*) FROM poster WHERE contents_hash = 0;"
                    + " SELECT count(*) FROM sqlite_schema WHERE name LIKE 'search_gram%';"
                    + " SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'poster' ORDER BY name);"
                    // Schema 10: the three voted posters' counts so far, one bucket each.
                    + " SELECT count(*), sum(good1), sum(good2) FROM vote_bucket;"
                    // Schema 14: a trending score on exactly the voted posters.
                    + " SELECT count(*) FROM poster WHERE (trend > 0) <> (good1 + good2 > 0);",
            ])
            #expect(
                after.stdout
                    == "\(Self.latestSchema)\ninteger\n0\n0\nposter_identity poster_image2 poster_trending poster_unvoted poster_voted\n3|5|2\n0\n",
                "schema \(version) upgraded in place")
            #expect(try answers(old) == expected, "schema \(version)")
            let gc = try Tenbin.run(["gc", "--json"], store: old)
            #expect(gc.stdout.contains(#""removedBlobs": 0"#), "schema \(version): \(gc.stdout)")
            // A re-import recognises every poster as stored, except poster 3, whose text was
            // edited: it comes back as 14, the id after the deleted 13.
            let again = try Tenbin.run(["import", samples, "--json"], store: old)
            #expect(again.stdout.hasPrefix(#"{"imported": 1, "skipped": 9, "failed": 0"#), "schema \(version): \(again.stdout)")
            #expect(again.stdout.contains(#""id": 14"#), "schema \(version)")
            let posted = try Tenbin.run(
                ["post", "\(samples)/01-cats-or-dogs/1-cat.jpg", "\(samples)/01-cats-or-dogs/2-dog.jpg", "--text", "new", "--json"],
                store: old)
            #expect(posted.stdout.contains(#""id": 15"#), "schema \(version): \(posted.stdout) \(posted.stderr)")
            #expect(try Tenbin.run(["check"], store: old).status == 0)
        }
    }
}
