import Foundation
import Testing

/// A `--store` that is not a store is an error naming it, for every command; `check` of a
/// store that does not exist says so.
@Suite(.ownThreads, .timeLimit(.minutes(10))) struct StoreLocationTests {
    static let commands: [[String]] = [
        ["list"], ["search", "猫"], ["check"], ["gc"], ["vote", "1", "1"], ["show", "1"], ["delete", "1"], ["image", "1", "1"],
        ["watch", "--json"],
    ]

    @Test(arguments: commands)
    func aStorePathThatIsAFileIsRefusedNamingIt(command: [String]) throws {
        let folder = try ScratchFolder()
        let file = folder.path + "/afile"
        try Data("not a store".utf8).write(to: URL(fileURLWithPath: file))
        let run = try Tenbin.run(command, store: file)
        #expect(run.status == 1)
        #expect(run.stderr == "Error: \(file): not a tenbin store (it is a file, not a folder)\n")
        #expect(run.stdout.isEmpty)
    }

    @Test func theDatabaseFileItselfGivenAsTheStoreIsRefused() throws {
        let folder = try ScratchFolder()
        #expect(
            try Tenbin.run(
                ["post", Tenbin.root + "/SampleImages/01-cats-or-dogs/1-cat.jpg", Tenbin.root + "/SampleImages/01-cats-or-dogs/2-dog.jpg"],
                store: folder.path
            ).status == 0)
        let run = try Tenbin.run(["list"], store: folder.path + "/tenbin.sqlite")
        #expect(run.status == 1)
        #expect(run.stderr.contains("tenbin.sqlite: not a tenbin store (it is a file, not a folder)"))
    }

    @Test func aDatabaseThatIsNotSQLiteOrNotTenbinsIsRefused() throws {
        let folder = try ScratchFolder()
        try Data("garbage garbage garbage".utf8).write(to: URL(fileURLWithPath: folder.path + "/tenbin.sqlite"))
        for command in [["list"], ["check"], ["vote", "1", "1"]] {
            let run = try Tenbin.run(command, store: folder.path)
            #expect(run.status == 1)
            #expect(run.stderr == "Error: \(folder.path): not a tenbin store (its tenbin.sqlite is not a SQLite database)\n")
        }
        let other = try ScratchFolder()
        _ = try Shell.run("sqlite3", other.path + "/tenbin.sqlite", "CREATE TABLE invoices (id INTEGER)")
        let run = try Tenbin.run(["list"], store: other.path)
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("Error: \(other.path): not a tenbin store (its tenbin.sqlite is another program's database"))
        // Refused, never migrated: the other program's database is left as it was.
        let tables = try Shell.capture(["sqlite3", other.path + "/tenbin.sqlite", ".tables"])
        #expect(tables.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "invoices")
    }

    @Test func checkOfAStoreThatDoesNotExistFails() throws {
        let folder = try ScratchFolder()
        let missing = folder.path + "/typo"
        let run = try Tenbin.run(["check"], store: missing)
        #expect(run.status == 1)
        #expect(run.stderr == "Error: no store at \(missing)\n")
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
