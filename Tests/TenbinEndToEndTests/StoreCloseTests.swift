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

    /// The database file alone, read as a read-only mount's reader reads it.
    static func votesInTheDatabaseFileAlone(_ store: ScratchFolder) throws -> String {
        let read = try Shell.capture(["sqlite3", "file:\(store.path)/tenbin.sqlite?immutable=1", "SELECT sum(good1 + good2) FROM poster"])
        return read.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + read.stderr
    }

    @Test func aWatchEndedByCtrlCClosesTheStoreItWatchedAfterAnotherProcessVoted() throws {
        // Before the fix the watch exited while its live feed's task still held the store: the
        // log stayed beside the database, and the database file alone lacked the votes.
        let store = try ScratchFolder()
        let cats = ["\(Tenbin.root)/SampleImages/01-cats-or-dogs/1-cat.jpg", "\(Tenbin.root)/SampleImages/01-cats-or-dogs/2-dog.jpg"]
        #expect(try Tenbin.run(["post", cats[0], cats[1]], store: store.path).status == 0)
        for round in 1...3 {
            let watch = try WatchProcess(["watch", "--json"], store: store)
            #expect(try watch.nextObject()["type"] as? String == "snapshot")
            let vote = try Tenbin.run(["vote", "1", "1"], store: store.path)
            #expect(vote.status == 0, "\(vote.stderr)")
            #expect(try watch.nextObject()["type"] as? String == "modified")
            let ended = try watch.interrupt()
            #expect(ended.status == 130)
            #expect(ended.stderr == "")
            #expect(!store.files().contains { $0.hasPrefix("tenbin.sqlite-") }, "\(store.files())")
            #expect(try Self.votesInTheDatabaseFileAlone(store) == "\(round)")
        }
    }

    @Test func aVoteLeavesItsLogForTheNextCommandWhichFoldsItIn() throws {
        // A vote is one small commit, flushed in the log; copying the log into the database at
        // exit cost two more flushes per vote, so the vote leaves it, and any other command
        // that closes the store last folds it in.
        let store = try ScratchFolder()
        let cats = ["\(Tenbin.root)/SampleImages/01-cats-or-dogs/1-cat.jpg", "\(Tenbin.root)/SampleImages/01-cats-or-dogs/2-dog.jpg"]
        #expect(try Tenbin.run(["post", cats[0], cats[1]], store: store.path).status == 0)
        #expect(!store.files().contains { $0.hasPrefix("tenbin.sqlite-") }, "a post folds its log in: \(store.files())")
        for round in 1...3 {
            let vote = try Tenbin.run(["vote", "1", "2"], store: store.path)
            #expect(vote.status == 0, "\(vote.stderr)")
            #expect(store.files().contains("tenbin.sqlite-wal"), "round \(round): \(store.files())")
        }
        // Any SQLite reader sees the votes the log holds.
        let read = try Shell.capture(["sqlite3", store.path + "/tenbin.sqlite", "SELECT sum(good2) FROM poster"])
        #expect(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "3", "\(read.stderr)")
        #expect(try Tenbin.run(["list"], store: store.path).status == 0)
        #expect(!store.files().contains { $0.hasPrefix("tenbin.sqlite-") }, "\(store.files())")
        #expect(try Self.votesInTheDatabaseFileAlone(store) == "3")
    }

    @Test func theLogVotesLeaveStaysShort() throws {
        // The next process reads the whole log to rebuild its index, and a log no close folds
        // in is never restarted: before the bound, 300 votes left an 11 MB log that each vote
        // read. A vote writes five to ten pages; the vote past 64 folds the log in.
        let store = try ScratchFolder()
        let cats = ["\(Tenbin.root)/SampleImages/01-cats-or-dogs/1-cat.jpg", "\(Tenbin.root)/SampleImages/01-cats-or-dogs/2-dog.jpg"]
        #expect(try Tenbin.run(["post", cats[0], cats[1]], store: store.path).status == 0)
        var largest = 0
        for _ in 0..<40 {
            #expect(try Tenbin.run(["vote", "1", "1"], store: store.path).status == 0)
            let size = (try? FileManager.default.attributesOfItem(atPath: store.path + "/tenbin.sqlite-wal")[.size] as? Int) ?? 0
            largest = max(largest, size)
        }
        #expect(largest > 0, "votes leave the log")
        #expect(largest / (4096 + 24) <= 80, "the log reached \(largest / (4096 + 24)) pages")
        let read = try Shell.capture(["sqlite3", store.path + "/tenbin.sqlite", "SELECT good1 FROM poster"])
        #expect(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "40")
    }
}
