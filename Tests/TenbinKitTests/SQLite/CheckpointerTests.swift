import Foundation
import Testing

@testable import TenbinSQLite

/// The writer's checkpoints run on the checkpointer's own connection, after the commit.
@Suite struct CheckpointerTests {
    @Test func aCommitPastTheThresholdIsCheckpointedInTheBackgroundAndReadsWhole() async throws {
        let folder = try TemporaryStore()
        let path = "\(folder.path)/tenbin.sqlite"
        let writer = try Database(path: path, mode: .create)
        writer.checkpointInBackground()
        try writer.execute("CREATE TABLE t (x BLOB NOT NULL)")
        let small = try fileSize(path)
        // About 2,000 pages of 4 KiB: past the request threshold (1,000), short of the inline bound.
        try writer.transaction {
            try writer.execute(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO t SELECT randomblob(3000) FROM n"
            )
        }
        let checkpointer = try #require(writer.backgroundCheckpointer)
        // Bounded wait for the queue (not a speed assertion: 30 s is far beyond any machine).
        let deadline = ContinuousClock.now + .seconds(30)
        while checkpointer.completed.withLock({ $0 }) == 0 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(checkpointer.completed.withLock { $0 } >= 1)
        // The pages are in the database file now, not only in the WAL.
        #expect(try fileSize(path) > small + 2000 * 3000)
        let reader = try Database(path: path, mode: .readWrite)
        #expect(try reader.statement("SELECT count(*), sum(length(x)) FROM t").first { [$0.int(0), $0.int(1)] } == [2000, 6_000_000])
        #expect(try reader.statement("PRAGMA integrity_check").first { $0.text(0) } == "ok")
    }

    private func fileSize(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
