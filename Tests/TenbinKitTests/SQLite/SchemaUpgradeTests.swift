import Foundation
import Testing

@testable import TenbinKit
@testable import TenbinSQLite

/// Stores written by earlier versions of tenbin open, upgrade in place, and stay sound.
@Suite struct SchemaUpgradeTests {
    static let digests = ["a", "b", "c"].map { String(repeating: $0, count: 64) }

    /// The index document the schema-2 vocabulary gave a key: every one-, two- and
    /// three-character piece, each scalar as four base-36 digits.
    static func schema2Document(_ key: String) -> String {
        var seen: Set<String> = []
        var tokens: [String] = []
        for segment in key.split(separator: "\n") {
            let scalars = Array(segment.unicodeScalars)
            for length in 1...3 where scalars.count >= length {
                for start in 0...(scalars.count - length) {
                    let token = scalars[start..<(start + length)].map { scalar in
                        let digits = String(scalar.value, radix: 36)
                        return String(repeating: "0", count: 4 - digits.count) + digits
                    }.joined()
                    if seen.insert(token).inserted { tokens.append(token) }
                }
            }
        }
        return tokens.joined(separator: " ")
    }

    /// A store as tenbin wrote it at schema 2: three posters over three blobs, searchable
    /// with the old vocabulary.
    func makeSchema2Store(in folder: TemporaryStore) throws {
        let db = try Database(path: "\(folder.path)/tenbin.sqlite", mode: .create)
        try db.execute(Migrations.steps[0].sql)
        try db.execute(Migrations.fts5SearchSchema)
        let posters: [(String, [String], Int, Int)] = [("ｷﾉｺ派？たけのこ派？", ["お菓子"], 0, 1), ("海と山", ["夏"], 1, 2), ("東京タワー", [], 2, 0)]
        for (index, digest) in Self.digests.enumerated() {
            try db.statement("INSERT INTO blob (digest, format, width, height, bytes) VALUES (?, 'jpeg', 1, 1, ?)").bind(digest, index)
                .run()
        }
        for (offset, (contents, hashtags, first, second)) in posters.enumerated() {
            let id = Int64(offset + 1)
            try db.statement("INSERT INTO poster (contents, created_at, image1, image2, good1) VALUES (?, 0, ?, ?, ?)")
                .bind(contents, Self.digests[first], Self.digests[second], offset).run()
            for (position, tag) in hashtags.enumerated() {
                try db.statement("INSERT INTO hashtag (poster_id, position, tag) VALUES (?, ?, ?)").bind(id, position, tag).run()
            }
            let key = SearchText.key(contents: contents, hashtags: hashtags)
            try db.statement("INSERT INTO search_key (poster_id, key) VALUES (?, ?)").bind(id, key).run()
            try db.statement("INSERT INTO search_gram (rowid, grams) VALUES (?, ?)").bind(id, Self.schema2Document(key)).run()
        }
        try db.execute("PRAGMA user_version = 2")
    }

    @Test func aSchema2StoreUpgradesInPlaceAndSearchesDeletesAndChecksAsBefore() throws {
        let folder = try TemporaryStore()
        try makeSchema2Store(in: folder)
        let board = try Board(folder: folder.path, create: false)
        #expect(try Migrations.version(of: Database(path: "\(folder.path)/tenbin.sqlite", mode: .readWrite)) == Migrations.steps.count)
        for (query, ids) in [("きのこ", [1]), ("たけのこ", [1]), ("菓", [1]), ("夏 海", [2]), ("タワー", [3]), ("京", [3]), ("山", [2]), ("空", [])] {
            #expect(try board.search(query: query).map(\.id) == ids.map(Int64.init), "\(query)")
        }
        #expect(try board.poster(id: 2).images.map(\.digest.hex) == [Self.digests[1], Self.digests[2]])
        // Schema 10: each poster's votes so far in one bucket of its timeline.
        for poster in try board.posters(limit: 100) {
            let buckets = try board.timeline(poster: poster.id, bucket: .minute)
            #expect(buckets.map { [$0.good1, $0.good2] } == (poster.totalVotes > 0 ? [[poster.good1, poster.good2]] : []), "\(poster.id)")
        }
        // A contentless index forgets a row only given the tokens it holds: deleting after the
        // upgrade must remove exactly what the upgrade indexed.
        try board.delete(id: 1)
        #expect(try board.search(query: "きのこ").isEmpty)
        #expect(try board.store.integrityProblems() == [])
        // (The placeholder blob rows have no files; everything else must be sound.)
        #expect(try board.check().problems.filter { !$0.contains("is missing") } == [])
    }

    @Test func aStoreWithAPosterMissingItsBlobRowIsRefusedAndLeftAsItWas() throws {
        let folder = try TemporaryStore()
        try makeSchema2Store(in: folder)
        do {
            let db = try Database(path: "\(folder.path)/tenbin.sqlite", mode: .readWrite)
            try db.execute("PRAGMA foreign_keys = OFF; DELETE FROM blob WHERE digest = '\(Self.digests[2])'")
        }
        #expect(throws: StoreError(.damaged("poster 2 references an image with no blob row; it cannot be upgraded"), at: folder.path)) {
            _ = try Board(folder: folder.path, create: false).count()
        }
        let db = try Database(path: "\(folder.path)/tenbin.sqlite", mode: .readWrite)
        #expect(try Migrations.version(of: db) == 2)
        #expect(try db.statement("SELECT count(*) FROM poster").first { $0.int(0) } == 3)
    }

    /// Everything about a database's schema that behaviour depends on: tables and indexes,
    /// columns (type, NOT NULL, default, key), index columns, foreign keys with their
    /// actions, WITHOUT ROWID, and the FTS5 configuration.
    static func shape(of db: Database) throws -> [String] {
        var shape: [String] = []
        let objects = try db.statement(
            "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"
        ).map { ($0.text(0), $0.text(1), $0.text(2), $0.text(3)) }
        for (type, name, table, sql) in objects {
            shape.append("\(type) \(name) on \(table)\(sql.contains("WITHOUT ROWID") ? " without rowid" : "")")
            if type == "table" {
                shape += try db.statement("SELECT name, type, \"notnull\", coalesce(dflt_value, ''), pk FROM pragma_table_xinfo(?)")
                    .bind(name).map { "  column \($0.text(0)) \($0.text(1)) notnull=\($0.int(2)) default=\($0.text(3)) pk=\($0.int(4))" }
                shape += try db.statement(
                    "SELECT \"table\", \"from\", coalesce(\"to\", ''), on_update, on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq"
                ).bind(name).map { "  references \($0.text(0)) \($0.text(1))→\($0.text(2)) \($0.text(3)) \($0.text(4))" }
            }
            if type == "index" {
                shape += try db.statement("SELECT seqno, coalesce(name, '<expr>'), \"desc\" FROM pragma_index_xinfo(?) WHERE key")
                    .bind(name).map { "  key \($0.int(0)) \($0.text(1)) desc=\($0.int(2))" }
            }
        }
        return shape
    }

    @Test func aNewStoreGetsTheSchemaThatUpgradingFromSchema1Builds() throws {
        let fresh = try TemporaryStore()
        // As a new store is made: built aside, then linked into place.
        try Migrations.create(at: "\(fresh.path)/tenbin.sqlite", folder: fresh.path)
        let freshDB = try Database(path: "\(fresh.path)/tenbin.sqlite", mode: .readWrite)
        try Migrations.migrate(freshDB)
        let old = try TemporaryStore()
        let oldDB = try Database(path: "\(old.path)/tenbin.sqlite", mode: .create)
        try oldDB.execute(Migrations.steps[0].sql + "; PRAGMA user_version = 1")
        try Migrations.migrate(oldDB)
        #expect(try Migrations.version(of: freshDB) == Migrations.steps.count)
        #expect(try Migrations.version(of: oldDB) == Migrations.steps.count)
        let shape = try Self.shape(of: freshDB)
        #expect(shape.contains("  column image1 INTEGER notnull=1 default= pk=0"))
        #expect(shape.contains("table search_posting on search_posting without rowid"))
        #expect(!shape.contains { $0.contains("search_gram") })
        #expect(shape == (try Self.shape(of: oldDB)))
    }
}
