import Foundation
import TestPostgresServer
import Testing

/// The command line on a PostgreSQL database (`--database`, `TENBIN_DATABASE_URL`), against the
/// throwaway server `make test` starts. Without one the suite is skipped (the TenbinKit suite
/// says so loudly, and fails under CI).
@Suite(.ownThreads, .enabled(if: TestPostgresServer.suitesRun), .timeLimit(.minutes(10)))
struct PostgresCommandTests {
    static let images = [Tenbin.root + "/SampleImages/01-cats-or-dogs/1-cat.jpg", Tenbin.root + "/SampleImages/01-cats-or-dogs/2-dog.jpg"]

    /// A new empty database on the test server; its URL.
    static func freshDatabase() throws -> String {
        let server = try TestPostgresServer.requireURL()
        let name = "tenbin_e2e_\(UInt32.random(in: 0...UInt32.max))"
        let created = try Shell.capture(["psql", "-q", server, "-c", "CREATE DATABASE \(name)"])
        try #require(created.status == 0, "createdb: \(created.stderr)")
        return String(server[...server.lastIndex(of: "/")!]) + name  // the test server's URL has a path
    }

    @Test func storeCommandsRunOnTheDatabaseAndTheFolderHoldsOnlyBlobs() throws {
        let url = try Self.freshDatabase()
        let folder = try ScratchFolder()
        let migrated = try Tenbin.run(["migrate", "--database", url])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        // Every step from 1 to the newest, whichever that is.
        let latest = try #require(migrated.stdout.firstMatch(of: /now at (\d+)\./).flatMap { Int($0.output.1) })
        #expect(
            latest >= 3 && migrated.stdout.contains("applied schema versions \((1...latest).map(String.init).joined(separator: ", ")); now")
        )
        #expect(try Tenbin.run(["migrate", "--database", url]).stdout.contains("is up to date (schema version \(latest))"))
        let environment = ["TENBIN_DATABASE_URL": url]
        let posted = try Tenbin.run(
            ["post", Self.images[0], Self.images[1], "--text", "猫か犬か", "--tag", "neko", "--json"], store: folder.path,
            environment: environment)
        #expect(posted.status == 0, "\(posted.stderr)")
        #expect(try Tenbin.run(["vote", "1", "2", "--times", "3"], store: folder.path, environment: environment).status == 0)
        let listed = try Tenbin.run(["list", "--json"], store: folder.path, environment: environment)
        #expect(listed.stdout.filter { $0 != " " }.contains("\"good2\":3"), "\(listed.stdout)")
        let found = try Tenbin.run(["search", "猫"], store: folder.path, environment: environment)
        #expect(found.status == 0 && found.stdout.contains("猫か犬か"))
        #expect(try Tenbin.run(["search", "ネコ科"], store: folder.path, environment: environment).status != 0)
        let checked = try Tenbin.run(["check"], store: folder.path, environment: environment)
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout.contains("1 poster, 2 blobs"))
        // The folder holds the blobs and nothing of SQLite's.
        #expect(folder.files().allSatisfy { $0.hasPrefix("blobs/") }, "\(folder.files())")
        // --database on the command line wins over the environment (where an empty database
        // is refused by a command that only reads).
        let elsewhere = try Tenbin.run(["list"], store: folder.path, environment: ["TENBIN_DATABASE_URL": try Self.freshDatabase()])
        #expect(elsewhere.stderr.contains("no tenbin schema in postgres://"), "\(elsewhere.stderr)")
        let chosen = try Tenbin.run(["list", "--database", url], store: folder.path, environment: ["TENBIN_DATABASE_URL": "host=/nowhere"])
        #expect(chosen.stdout.contains("猫か犬か"), "\(chosen.stderr)")
        // Beside --store before the subcommand, as an operator writes `tenbin --store DIR --database URL serve`.
        for global in [["--database", url], ["--database=" + url]] {
            let listed = try Tenbin.run(global + ["list"], store: folder.path, environment: ["TENBIN_DATABASE_URL": "host=/nowhere"])
            #expect(listed.stdout.contains("猫か犬か"), "\(listed.stderr)")
        }
        #expect(try Tenbin.run(["--database"]).stderr.hasPrefix("Error: missing value for '--database URL'"))
    }

    @Test func anUnreachableDatabaseIsOneErrorLineWithoutThePassword() throws {
        let folder = try ScratchFolder()
        let run = try Tenbin.run(
            ["list", "--database", "postgresql://alice:hunter2@127.0.0.1:1/board?connect_timeout=3"], store: folder.path)
        #expect(run.status != 0)
        #expect(run.stderr.hasPrefix("Error: postgres://alice@127.0.0.1:1/board: the database is unavailable"), "\(run.stderr)")
        #expect(!run.stderr.contains("hunter2"))
        #expect(run.stderr.split(separator: "\n").filter { $0.hasPrefix("Error:") }.count == 1)
        let malformed = try Tenbin.run(["list", "--database", "postgresql://alice:hunter2@host/db?bogus=1"], store: folder.path)
        #expect(malformed.status != 0)
        #expect(malformed.stderr.hasPrefix("Error: the database connection string is not valid"), "\(malformed.stderr)")
        #expect(!malformed.stderr.contains("hunter2"))
    }
}
