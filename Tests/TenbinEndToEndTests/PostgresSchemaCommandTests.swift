import Foundation
import TenbinPostgres
import TestPostgresServer
import Testing

/// What a command may do to a PostgreSQL database's schema: a command that only reads never
/// creates or upgrades it, writing commands do, and `serve` upgrades an older schema only when
/// told (`--migrate`), so a newer server started during a rolling upgrade never migrates under
/// older ones. And a database's board needs its blob folder named.
@Suite(.ownThreads, .enabled(if: TestPostgresServer.suitesRun), .timeLimit(.minutes(10)))
struct PostgresSchemaCommandTests {
    static let readingCommands = [["check"], ["list"], ["search", "猫"], ["show", "1"], ["image", "1", "1"], ["check", "--json"]]

    /// How many tables the database has (tenbin's or any).
    static func tables(_ url: String) throws -> String {
        let counted = try Shell.capture(["psql", "-At", url, "-c", "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"])
        try #require(counted.status == 0, "\(counted.stderr)")
        return counted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The database's schema version, as `tenbin migrate` would find it.
    static func version(_ url: String) throws -> Int {
        try PostgresStore(url: url, poolSize: 1, migrate: false).schemaVersion()
    }

    @Test func readingCommandsOnAnEmptyDatabaseCreateNothingAndSaySo() throws {
        let url = try PostgresCommandTests.freshDatabase()
        let folder = try ScratchFolder()
        let location = url.replacingOccurrences(of: "postgresql://", with: "postgres://")
        for command in Self.readingCommands {
            let run = try Tenbin.run(command + ["--database", url], store: folder.path)
            #expect(run.status == 1, "\(command): \(run.stdout)")
            #expect(run.stderr == "Error: no tenbin schema in \(location); run tenbin migrate\n", "\(command)")
        }
        #expect(try Self.tables(url) == "0")
        #expect(folder.files().isEmpty)
        // A writing command still creates the schema.
        let posted = try Tenbin.run(
            ["post", PostgresCommandTests.images[0], PostgresCommandTests.images[1], "--database", url], store: folder.path)
        #expect(posted.status == 0, "\(posted.stderr)")
        #expect(try Self.version(url) == PostgresSchema.latestVersion)
        #expect(try Tenbin.run(["check", "--database", url], store: folder.path).status == 0)
    }

    @Test func serveRefusesAnOlderSchemaUnlessToldToMigrateAndReadersRefuseIt() throws {
        let url = try PostgresCommandTests.freshDatabase()
        let older = PostgresSchema.latestVersion - 1
        try PostgresStore(url: url, poolSize: 1, migrate: false).migrate(to: older)
        let folder = try ScratchFolder()
        let expected =
            "the store has schema version \(older), older than this tenbin's (\(PostgresSchema.latestVersion)); run tenbin migrate"
        let refused = try Tenbin.run(["serve", "--listen", "127.0.0.1:0", "--database", url], store: folder.path)
        #expect(refused.status == 1 && refused.stdout.isEmpty, "\(refused.stdout)")
        #expect(refused.stderr.hasPrefix("Error: ") && refused.stderr.hasSuffix(expected + "\n"), "\(refused.stderr)")
        #expect(refused.stderr.contains(String(url.split(separator: "@").last ?? "")), "\(refused.stderr)")
        let listed = try Tenbin.run(["list", "--database", url], store: folder.path)
        #expect(listed.status == 1 && listed.stderr.hasSuffix(expected + "\n"), "\(listed.stderr)")
        #expect(try Self.version(url) == older)
        let server = try ServeProcess(["--database", url, "--migrate"], store: folder.path)
        #expect(try Self.version(url) == PostgresSchema.latestVersion)
        _ = server.stop()
        // At the newest schema, serve starts without being told.
        let again = try ServeProcess(["--database", url], store: folder.path)
        #expect(again.stop().status == 0)
    }

    @Test func aDatabaseBoardWithoutItsBlobFolderIsRefusedNamingIt() throws {
        let url = try PostgresCommandTests.freshDatabase()
        let message =
            "Error: with --database (or TENBIN_DATABASE_URL), give the blob folder too: --store DIR or TENBIN_STORE (its blobs/ holds the images)\n"
        for command in [
            ["serve", "--listen", "127.0.0.1:0"], ["list"], ["post", PostgresCommandTests.images[0], PostgresCommandTests.images[1]],
        ] {
            let run = try Tenbin.run(command + ["--database", url])
            #expect(run.status == 64 && run.stderr.hasPrefix(message), "\(command): \(run.stderr)")
            let fromEnvironment = try Tenbin.run(command, environment: ["TENBIN_DATABASE_URL": url])
            #expect(fromEnvironment.status == 64 && fromEnvironment.stderr.hasPrefix(message), "\(command): \(fromEnvironment.stderr)")
        }
        #expect(try Self.tables(url) == "0")
        // TENBIN_STORE names it as well as --store does.
        let folder = try ScratchFolder()
        let posted = try Tenbin.run(
            ["post", PostgresCommandTests.images[0], PostgresCommandTests.images[1], "--database", url],
            environment: ["TENBIN_STORE": folder.path])
        #expect(posted.status == 0, "\(posted.stderr)")
        #expect(folder.files().count == 2 && folder.files().allSatisfy { $0.hasPrefix("blobs/") }, "\(folder.files())")
        // A copy's PostgreSQL side needs its folder too.
        let copied = try Tenbin.run(["copy", "--from", url, "--to", folder.path + "/copy"])
        #expect(copied.status == 64 && copied.stderr.hasPrefix("Error: a PostgreSQL source needs its blob folder: give '--from-blobs DIR'"))
    }
}
