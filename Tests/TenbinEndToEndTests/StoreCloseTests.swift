import Foundation
import Testing

/// A command closes its store before tenbin exits, so SQLite copies the write-ahead log into
/// the database and removes it: the database file alone holds every commit, as a reader that
/// ignores the log (a read-only copy of the folder, opened immutable) needs.
@Suite(.ownThreads, .timeLimit(.minutes(10))) struct StoreCloseTests {
    @Test func anImportLeavesNoWriteAheadLogAndTheDatabaseFileHoldsEveryPoster() throws {
        // Before the fix about half of the imports exited while another thread still held the
        // store (it then never closed); five runs would all have closed by chance 1 time in 32.
        for jobs in ["1", "2", "2", "2", "2"] {
            let store = try ScratchFolder()
            let run = try Tenbin.run(["import", Tenbin.root + "/SampleImages", "--jobs", jobs, "--json"], store: store.path)
            #expect(run.status == 0, "\(run.stderr)")
            let imported = try #require(run.stdout.firstMatch(of: /"imported": (\d+)/).flatMap { Int($0.output.1) })
            #expect(imported == 10)
            #expect(!store.files().contains { $0.hasPrefix("tenbin.sqlite-") }, "\(store.files())")
            // The database file alone, read as a read-only mount's reader reads it.
            let read = try Shell.capture([
                "sqlite3", "file:\(store.path)/tenbin.sqlite?immutable=1", "SELECT count(*) FROM poster",
            ])
            #expect(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "\(imported)", "\(read.stderr)")
        }
    }
}
