import TestPostgresServer
import Testing

@testable import TenbinKit
@testable import TenbinPostgres

#if canImport(Glibc)
    import Glibc
#endif

/// The throwaway PostgreSQL server `make test` starts (scripts/postgres.sh), and a fresh
/// database on it for each test.
///
/// Whether the tests run is ``TestPostgresServer``'s to say (skipped without a server, failing
/// under CI=true).
enum TestPostgres {
    /// The server's URL (a superuser on its `postgres` database), or nil.
    static var serverURL: String? { TestPostgresServer.url }

    /// Whether PostgreSQL suites run: with a server, and under CI always (failing without one).
    static var isAvailable: Bool { TestPostgresServer.suitesRun }

    /// A new empty database; its URL. Dropped by nobody: the whole server goes at the end.
    static func freshDatabase() throws -> String {
        let url = try TestPostgresServer.requireURL()
        let name = "tenbin_\(UInt64.random(in: 0...UInt64.max) & 0xFFFF_FFFF_FFFF)"
        let admin = try Connection(ConnectionTarget(url))
        try admin.execute("CREATE DATABASE \(name)")
        return url.replacingLastPathComponent(with: name)
    }

    /// Undoes schema steps 15 and 16 on a database at the latest step (for tests that make an
    /// older schema by taking later steps' work away): step 16's `poster.hidden` goes, the
    /// posting lists' tables go, and `grams` (filled from each key), the GIN index and the
    /// search functions of steps 4–6 come back.
    static func undoPostingLists(on connection: Connection) throws {
        try connection.execute(
            """
            ALTER TABLE poster DROP COLUMN hidden;
            DROP TABLE search_segment, search_posting, search_stale, search_merge;
            ALTER TABLE search_key ADD COLUMN grams text[] NOT NULL DEFAULT '{}'; ALTER TABLE search_key ALTER COLUMN grams DROP DEFAULT
            """)
        let rows = try connection.query("SELECT poster_id, key FROM search_key ORDER BY poster_id")
        let ids = try (0..<rows.count).map { try rows.int64($0, 0) }
        let grams = (0..<rows.count).map { PostgresBind.textArrayLiteral(SearchGrams.tokens(forKey: rows.text($0, 1))) }
        try connection.query(
            "UPDATE search_key s SET grams = u.g::text[] FROM unnest(\(ids)::bigint[], \(grams)::text[]) AS u(i, g) WHERE s.poster_id = u.i"
        )
        try connection.execute(
            [
                PostgresStore.searchWindowSchemaSQL, PostgresStore.searchIndexSQL, PostgresStore.exactSearchFunctionSQL,
                PostgresStore.popularWalkFunctionSQL, "DELETE FROM tenbin_schema WHERE version >= 15",
            ].joined(separator: ";\n"))
    }

    /// A server of the test's own (for tests that restart or stop it), removed by `stop`.
    final class PrivateServer {
        let folder: String
        let url: String

        init() throws {
            folder = "/tmp/tenbin-postgres-private-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            url = try Self.script("start '\(folder)'")
        }

        /// Stops it at once (as a crash would) and starts it again on the same port.
        func restart() throws {
            let status = system("\(Fixtures.root)/scripts/postgres.sh restart '\(folder)' >/dev/null")
            try #require(status == 0, "restarting PostgreSQL failed")
        }

        /// Runs `scripts/postgres.sh COMMAND … FOLDER …` and returns the first line it printed.
        static func script(_ arguments: String) throws -> String {
            let output = "/tmp/tenbin-postgres-script-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let status = system("\(Fixtures.root)/scripts/postgres.sh \(arguments) > '\(output)'")
            defer { unlink(output) }
            guard status == 0, let file = fopen(output, "r") else {
                Issue.record("scripts/postgres.sh \(arguments) failed")
                throw PostgresError(kind: .unavailable, sqlState: nil, message: "postgres.sh \(arguments) failed", target: "")
            }
            defer { fclose(file) }
            var line = [CChar](repeating: 0, count: 512)
            _ = fgets(&line, 512, file)
            return String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).trimmingCharacters(in: " \n")
        }

        deinit {
            _ = system("\(Fixtures.root)/scripts/postgres.sh stop '\(folder)'")
        }
    }

    /// A hot standby of a ``PrivateServer`` (scripts/postgres.sh standby), removed when released.
    final class Standby {
        let folder = "/tmp/tenbin-postgres-standby-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let url: String

        init(of primary: PrivateServer) throws {
            url = try PrivateServer.script("standby '\(folder)' '\(primary.folder)'")
        }

        deinit {
            _ = system("\(Fixtures.root)/scripts/postgres.sh stop '\(folder)'")
        }
    }
}

extension String {
    /// A URL with its path (the database name) replaced.
    func replacingLastPathComponent(with name: String) -> String {
        guard let slash = lastIndex(of: "/") else { return self + "/" + name }
        let query = self[slash...].firstIndex(of: "?")
        return String(self[...slash]) + name + (query.map { String(self[$0...]) } ?? "")
    }
}
