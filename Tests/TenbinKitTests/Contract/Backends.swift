import Foundation
import TenbinKit
import TenbinPostgres
import TenbinSQLite
import Testing

/// A backend the contract suite runs against: every test in `Contract/` takes each of these.
/// A backend added to the project must add its row here; `ContractCoverageTests` fails
/// until it does.
struct BackendUnderTest: Sendable, CustomTestStringConvertible {
    /// The type that conforms to `StoreBackend`, as written in its source.
    let typeName: String
    let name: String
    let make: @Sendable (_ folder: String) throws -> any StoreBackend

    var testDescription: String { name }

    static let all: [BackendUnderTest] =
        [
            BackendUnderTest(typeName: "SQLiteStore", name: "SQLite file") { try SQLiteStore(folder: $0, create: true) },
            BackendUnderTest(typeName: "MemoryStore", name: "memory (tests only)") { _ in MemoryStore() },
        ] + (TestPostgres.isAvailable ? [postgres] : [])

    /// PostgreSQL, a fresh database on the test server (scripts/postgres.sh) for each test.
    static let postgres = BackendUnderTest(typeName: "PostgresStore", name: "PostgreSQL") { _ in
        try PostgresStore(url: TestPostgres.freshDatabase(), poolSize: 4)
    }

    /// Backends left out of this run, and why: said loudly, and never allowed under CI=true.
    static let skipped: [String: String] =
        TestPostgres.isAvailable ? [:] : ["PostgresStore": "no test PostgreSQL server (TENBIN_TEST_DATABASE_URL is not set)"]

    /// A fresh board on this backend, its blobs in `store`'s folder.
    func board(_ store: TemporaryStore, limits: ImageLimits = ImageLimits(), live: LiveFeeds.Options = LiveFeeds.Options()) throws -> Board
    {
        Board(
            store.configuration(limits: limits, live: live), store: try make(store.path), blobs: BlobStore(storeFolder: store.path))
    }
}

/// Every backend in the sources is in the contract suite.
@Suite struct ContractCoverageTests {
    @Test func everyBackendInTheSourcesJoinsTheContractSuite() throws {
        let sources = URL(fileURLWithPath: Fixtures.root + "/Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        var declared: Set<String> = []
        let pattern = try Regex(#"(?:class|struct|actor)\s+(\w+)\s*:[^{]*\bStoreBackend\b"#)
        for file in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: pattern) {
                if let name = match.output[1].substring { declared.insert(String(name)) }
            }
        }
        #expect(!declared.isEmpty)
        let tested = Set(BackendUnderTest.all.map(\.typeName)).union(BackendUnderTest.skipped.keys)
        #expect(
            BackendUnderTest.skipped.isEmpty || ProcessInfo.processInfo.environment["CI"] != "true",
            "under CI every backend must run: \(BackendUnderTest.skipped)")
        #expect(declared.subtracting(tested).isEmpty, "backends not in the contract suite: \(declared.subtracting(tested).sorted())")
    }
}
