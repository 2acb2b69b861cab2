#if canImport(Glibc)
    import Glibc
#endif

/// The throwaway PostgreSQL server `make test` starts (scripts/postgres.sh run), as every test
/// target sees it: the one place that decides whether PostgreSQL tests run.
///
/// Without a server (`TENBIN_TEST_DATABASE_URL` unset) they are skipped, and the first look says
/// so loudly on stderr; under CI (`CI=true`) they run anyway and fail at ``requireURL()``, since
/// CI must run them.
public enum TestPostgresServer {
    /// The server's URL (a superuser on its `postgres` database), or nil.
    public static let url: String? = {
        guard let value = getenv("TENBIN_TEST_DATABASE_URL").map({ String(cString: $0) }), !value.isEmpty else {
            let line =
                "!!! TENBIN_TEST_DATABASE_URL is not set: the PostgreSQL tests are SKIPPED (run them with `make test` or scripts/postgres.sh run swift test) !!!\n"
            _ = line.withCString { write(2, $0, strlen($0)) }  // a lost warning changes nothing else
            return nil
        }
        return value
    }()

    /// Whether this is a CI run (`CI=true`), where PostgreSQL tests must run.
    public static let isCI: Bool = getenv("CI").map { String(cString: $0) } == "true"

    /// Whether PostgreSQL suites are enabled: with a server, and always under CI (where they
    /// then fail at ``requireURL()`` instead of being skipped).
    public static let suitesRun: Bool = url != nil || isCI

    /// The server's URL; throws ``Missing`` when there is none (which only happens under CI,
    /// since suites are skipped otherwise).
    public static func requireURL() throws -> String {
        guard let url else { throw Missing() }
        return url
    }

    /// No test PostgreSQL server in a run that must have one.
    public struct Missing: Error, CustomStringConvertible {
        public var description: String {
            "CI=true but TENBIN_TEST_DATABASE_URL is not set: PostgreSQL tests must run in CI (run them under scripts/postgres.sh run)"
        }
    }
}
