import Foundation
import Testing

@testable import TenbinKit
@testable import TenbinSQLite

/// Closing a SQLite store closes every connection it opened (the change source's, the
/// readers', the checkpointer's, the writer last), so SQLite folds the write-ahead log into the
/// database and removes it: the database file alone then holds every commit.
@Suite struct SQLiteCloseTests {
    @Test func closingABoardThatReadWroteAndWatchedLeavesTheDatabaseFileAloneHoldingEveryCommit() async throws {
        let folder = try TemporaryStore()
        let board = try Board(folder: folder.path, configuration: folder.configuration(), create: true)
        let posters = try board.quickPost([("cats", []), ("dogs", [])])
        // Several reads at once, so the pool opens several connections.
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { try board.count() } }
            for try await count in group { #expect(count == 2) }
        }
        var iterator = try board.observe(Feed()).makeAsyncIterator()
        #expect(try await iterator.next() != nil)
        for poster in posters { try board.vote(id: poster.id, side: .first, times: 3) }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files.contains("tenbin.sqlite-wal"), "the log exists while the store is open: \(files)")
        await board.close()
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!left.contains { $0.hasPrefix("tenbin.sqlite-") }, "\(left)")
        // Read as a read-only mount's reader reads it, ignoring any log.
        let immutable = try Database(path: folder.path + "/tenbin.sqlite", mode: .immutable)
        #expect(try immutable.statement("SELECT sum(good1) FROM poster").first { $0.int(0) } == 6)
        immutable.close()
    }

    @Test func aStoreThatDoesNotExistYetClosesWithoutCreatingAnything() throws {
        let folder = try TemporaryStore()
        let path = folder.path + "/later"
        let store = try SQLiteStore(folder: path, create: false)
        #expect(try store.read { try $0.count() } == 0)
        store.close()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect { try store.read { try $0.count() } } throws: { ($0 as? StoreError)?.reason == .closed }
    }
}
