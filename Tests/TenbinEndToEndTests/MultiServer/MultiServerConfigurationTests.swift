import Foundation
import TenbinKit
import TestPostgresServer
import Testing

extension MultiServerTests {
    /// The set-up docs/postgres.md recommends for every server: the database named by a service
    /// file, the password in a password file, nothing secret on a command line or in an answer.
    @Suite(.timeLimit(.minutes(10))) struct MultiServerConfigurationTests {
        @Test func aServiceFileAndAPasswordFileNameTheDatabaseAndNoPasswordShows() throws {
            let database = try SharedDatabase()
            // The test server lets this role in with its password only (scripts/postgres.sh);
            // roles are the whole server's, and the connection tests use the same password.
            let password = "right-horse"
            _ = try database.query(
                "DO $$ BEGIN CREATE ROLE tenbin_password LOGIN PASSWORD '\(password)'; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
            _ = try database.query("ALTER DATABASE \(database.name) OWNER TO tenbin_password")
            let server = try TestPostgresServer.requireURL()
            let port = try #require(server.firstMatch(of: /@127\.0\.0\.1:([0-9]+)\//)).output.1
            let folder = try ScratchFolder()
            let passwords = folder.path + "/pgpass"
            try "127.0.0.1:\(port):\(database.name):tenbin_password:\(password)\n".write(
                toFile: passwords, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: passwords)
            let service = "[board]\nhost=127.0.0.1\nport=\(port)\ndbname=\(database.name)\nuser=tenbin_password\n"
            try (service + "passfile=\(passwords)\n").write(toFile: folder.path + "/services", atomically: true, encoding: .utf8)
            let environment = ["PGSERVICEFILE": folder.path + "/services", "TENBIN_DATABASE_URL": "service=board"]
            let store = folder.path + "/shared"

            let migrated = try Tenbin.run(["migrate"], environment: environment)
            #expect(migrated.status == 0, "\(migrated.stderr)")
            #expect(migrated.stdout.contains("postgres service board: applied schema versions 1, 2"), "\(migrated.stdout)")
            let posted = try Tenbin.run(
                ["post", ServeEndToEndTests.ServeAPITests.cat, ServeEndToEndTests.ServeAPITests.dog, "--text", "via a service", "--json"],
                store: store, environment: environment)
            #expect(posted.status == 0, "\(posted.stderr)")
            // The role that needs its password created the tables: the password file was used.
            #expect(try database.query("SELECT tableowner FROM pg_tables WHERE tablename = 'poster'") == ["tenbin_password"])
            let listed = try Tenbin.run(["list"], store: store, environment: environment)
            #expect(listed.stdout.contains("via a service"), "\(listed.stderr)")

            // Without the password file the same service is refused: one line naming the service.
            try service.write(toFile: folder.path + "/services", atomically: true, encoding: .utf8)
            let refused = try Tenbin.run(["list"], store: store, environment: environment)
            #expect(refused.status == 1)
            #expect(refused.stderr.hasPrefix("Error: postgres service board: the database is unavailable"), "\(refused.stderr)")
            for run in [migrated, posted, listed, refused] { #expect(!(run.stdout + run.stderr).contains(password)) }
        }
    }
}
