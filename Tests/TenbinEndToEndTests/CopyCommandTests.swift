import Foundation
import TestPostgresServer
import Testing

/// `tenbin copy` run as a user runs it: SQLite to PostgreSQL and back, then every way it can be
/// refused. The PostgreSQL half needs the server `make test` starts.
@Suite(.ownThreads, .enabled(if: TestPostgresServer.suitesRun), .timeLimit(.minutes(10)))
struct CopyCommandTests {
    static let queries = ["猫", "ネコ", "ｷﾉｺ", "東京 タワー", "#犬", "a", "ー", "１"]

    /// A store folder with `count` posters over the two sample images (imported from a
    /// manifest), some voted on, and posters 3 and the last deleted, leaving gaps.
    static func board(_ folder: ScratchFolder, count: Int) throws -> (store: String, lastID: Int) {
        let store = folder.path + "/source"
        let pieces = ["猫", "ネコ", "ｷﾉｺ", "きのこ派", "東京タワー", "ＡＢＣ", "abc", "ー", "１", "テスト", " "]
        var lines: [String] = []
        for index in 0..<count {
            let text = (0..<(index % 5)).map { pieces[($0 * 7 + index) % pieces.count] }.joined()
            let tags = (0..<(index % 3)).map { "\"\(pieces[($0 + index) % pieces.count])\"" }.joined(separator: ", ")
            let images = index % 2 == 0 ? PostgresCommandTests.images : PostgresCommandTests.images.reversed()
            lines.append(
                #"{"image1": "\#(images[0])", "image2": "\#(images[1])", "contents": "\#(text) \#(index)", "hashtags": [\#(tags)]}"#)
        }
        let manifest = folder.path + "/posters.jsonl"
        try lines.joined(separator: "\n").write(toFile: manifest, atomically: true, encoding: .utf8)
        let imported = try Tenbin.run(["import", manifest], store: store)
        try #require(imported.status == 0, "\(imported.stderr)")
        for (id, times) in [(1, 3), (2, 1), (5, 7)] where id < count {
            try #require(try Tenbin.run(["vote", "\(id)", "\(id % 2 + 1)", "--times", "\(times)"], store: store).status == 0)
        }
        for id in [3, count] { try #require(try Tenbin.run(["delete", "\(id)"], store: store).status == 0) }
        return (store, count)
    }

    /// What a reader sees of a board: both feeds and every query's answers, as JSON.
    static func view(store: String, database: String? = nil) throws -> [String] {
        let choice = database.map { ["--database", $0] } ?? []
        var outputs: [String] = []
        for sort in ["new", "popular"] {
            let listed = try Tenbin.run(["list", "--json", "--limit", "1000", "--sort", sort] + choice, store: store)
            try #require(listed.status == 0, "\(listed.stderr)")
            outputs.append(listed.stdout)
            for query in queries {
                let found = try Tenbin.run(["search", query, "--json", "--limit", "1000", "--sort", sort] + choice, store: store)
                outputs.append("\(query): \(found.status) \(found.stdout)")
            }
        }
        return outputs
    }

    @Test func aBoardGoesToPostgreSQLAndBackWhole() throws {
        let folder = try ScratchFolder()
        let (source, lastID) = try Self.board(folder, count: 40)
        let database = try PostgresCommandTests.freshDatabase()
        let pgBlobs = folder.path + "/pg"
        let there = try Tenbin.run(["copy", "--from", source, "--to", database, "--to-blobs", pgBlobs])
        #expect(there.status == 0, "\(there.stderr)")
        #expect(there.stderr.isEmpty)
        #expect(there.stdout.contains("Copied 38 posters and 2 blob rows"), "\(there.stdout)")
        #expect(there.stdout.contains("Verified: 38 posters (ids 1–39, digest "), "\(there.stdout)")
        #expect(there.stdout.contains("its next poster gets id \(lastID + 1) or higher"), "\(there.stdout)")
        let back = folder.path + "/back"
        let returned = try Tenbin.run(["copy", "--from", database, "--from-blobs", pgBlobs, "--to", back, "--json"])
        #expect(returned.status == 0, "\(returned.stderr)")
        // The same digest of every poster on all three boards.
        let digest = try #require(there.stdout.firstMatch(of: /digest ([0-9a-f]{16})/)?.output.1)
        #expect(returned.stdout.contains("\"posterDigest\": \"\(digest)"), "\(returned.stdout)")
        let original = try Self.view(store: source)
        #expect(original[0].contains("猫"))
        #expect(try Self.view(store: pgBlobs, database: database) == original)
        #expect(try Self.view(store: back) == original)
        let checked = try Tenbin.run(["check"], store: back)
        #expect(checked.status == 0 && checked.stdout.contains("38 posters, 2 blobs"), "\(checked.stdout)\(checked.stderr)")
        // New posters and votes on both copies: new ids above every id the source gave.
        let posted = try Tenbin.run(["post", PostgresCommandTests.images[0], PostgresCommandTests.images[1], "--json"], store: back)
        #expect(posted.stdout.contains("\"id\": \(lastID + 1),"), "\(posted.stdout)\(posted.stderr)")
        let onDatabase = try Tenbin.run(
            ["post", PostgresCommandTests.images[1], PostgresCommandTests.images[0], "--json", "--database", database], store: pgBlobs)
        #expect(onDatabase.stdout.contains("\"id\": \(lastID + 1),"), "\(onDatabase.stdout)\(onDatabase.stderr)")
        let voted = try Tenbin.run(["vote", "1", "1", "--json", "--database", database], store: pgBlobs)
        #expect(voted.stdout.filter { $0 != " " }.contains("\"good1\":1"), "\(voted.stdout)\(voted.stderr)")
    }

    @Test func aCopyKilledMidwayIsRefusedAgainThenFinishedWithResume() throws {
        let folder = try ScratchFolder()
        let (source, _) = try Self.board(folder, count: 300)
        let database = try PostgresCommandTests.freshDatabase()
        let pgBlobs = folder.path + "/pg"
        let arguments = ["copy", "--from", source, "--to", database, "--to-blobs", pgBlobs, "--batch", "1"]
        let killed = try KilledRun.run(
            arguments, markerFile: folder.path + "/markers",
            at: { $0.hasPrefix("copy:posters ") && (Int($0.dropFirst("copy:posters ".count)) ?? 0) >= 20 })
        #expect(killed.landedInside("copy"), "\(killed.markers.suffix(3))")
        // Each batch of a copy into PostgreSQL writes its posters' search index (schema step 15):
        // check finds nothing wrong with search in what the killed copy committed.
        let checked = try Tenbin.run(["check", "--database", database], store: pgBlobs)
        #expect(!(checked.stdout + checked.stderr).contains("search"), "\(checked.stdout)\(checked.stderr)")
        let again = try Tenbin.run(arguments)
        #expect(again.status == 1)
        #expect(again.stderr.hasPrefix("Error: postgres://"), "\(again.stderr)")
        #expect(again.stderr.contains("is not empty") && again.stderr.contains("add --resume"), "\(again.stderr)")
        #expect(again.stderr.split(separator: "\n").count == 1)
        let resumed = try Tenbin.run(arguments + ["--resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.contains("Resumed after poster "), "\(resumed.stdout)")
        #expect(resumed.stdout.contains("Verified: 298 posters"), "\(resumed.stdout)")
        #expect(try Self.view(store: pgBlobs, database: database) == Self.view(store: source))
    }

    @Test func aNonEmptyTargetAndBadDatabasesAreOneClearLine() throws {
        let folder = try ScratchFolder()
        let (source, _) = try Self.board(folder, count: 4)
        let database = try PostgresCommandTests.freshDatabase()
        #expect(try Tenbin.run(["copy", "--from", source, "--to", database], store: folder.path + "/pg").status == 0)
        let cases: [(target: String, message: String)] = [
            (database, "is not empty (it holds 2 posters); a copy goes only into an empty store"),
            (source, "is both the source and the target of the copy"),
            ("postgresql://alice:hunter2@127.0.0.1/db?bogus=1", "Error: the database connection string is not valid"),
            (
                "postgresql://alice:hunter2@127.0.0.1:1/board?connect_timeout=3",
                "Error: postgres://alice@127.0.0.1:1/board: the database is unavailable"
            ),
        ]
        for (target, message) in cases {
            let run = try Tenbin.run(["copy", "--from", source, "--to", target], store: folder.path + "/pg")
            #expect(run.status == 1, "\(target)")
            #expect(run.stderr.contains(message), "\(run.stderr)")
            #expect(run.stderr.hasPrefix("Error: ") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            #expect(!run.stderr.contains("hunter2"))
            #expect(run.stdout.isEmpty)
        }
        // A database without tenbin's tables is no source, and is left as it was.
        let empty = try PostgresCommandTests.freshDatabase()
        let fromEmpty = try Tenbin.run(["copy", "--from", empty, "--from-blobs", folder.path + "/pg", "--to", folder.path + "/new"])
        #expect(fromEmpty.status == 1 && fromEmpty.stderr.hasPrefix("Error: no tenbin schema in postgres://"), "\(fromEmpty.stderr)")
        #expect(try PostgresSchemaCommandTests.tables(empty) == "0")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/new"))
    }
}

/// `tenbin copy`'s refusals that need no database.
@Suite(.ownThreads) struct CopyCommandUsageTests {
    @Test func missingStoresAndMisplacedOptionsAreRefusedWithOneLine() throws {
        let folder = try ScratchFolder()
        let file = folder.path + "/file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let failures: [([String], Int32, String)] = [
            (["copy", "--from", folder.path + "/nowhere", "--to", folder.path + "/t"], 1, "Error: no store at \(folder.path)/nowhere"),
            (["copy", "--from", file, "--to", folder.path + "/t"], 1, "Error: \(file): not a tenbin store (it is a file, not a folder)"),
            (["copy", "--from", folder.path], 64, "Error: missing '--to STORE'"),
            (["copy", "--to", folder.path], 64, "Error: missing '--from STORE'"),
            (
                ["copy", "--from", folder.path, "--to", folder.path + "/t", "--to-blobs", "x"], 64,
                "Error: '--to-blobs' is for a PostgreSQL side"
            ),
            (
                ["copy", "--from", folder.path, "--to", folder.path + "/t", "--database", "host=x"], 64,
                "Error: copy takes its stores from --from and --to"
            ),
            (
                ["copy", "--from", folder.path, "--to", folder.path + "/t", "--batch", "0"], 64,
                "Error: '--batch' takes a whole number from 1"
            ),
        ]
        for (arguments, status, message) in failures {
            let run = try Tenbin.run(arguments)
            #expect(run.status == status, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix(message), "\(arguments): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }.count == 1)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/t"))
    }
}
