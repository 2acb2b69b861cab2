import Foundation
import Testing

@testable import TenbinSQLite

/// A new store's database is built aside and linked into place whole (Migrations+Create.swift).
@Suite struct StoreCreationTests {
    /// The names in `folder`, sorted.
    func names(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    @Test func aNewStoreIsWholeInWALModeAndLeavesNoFileOfItsOwnBehind() throws {
        let folder = try TemporaryStore()
        let store = folder.path + "/new"
        let opened = try SQLiteStore(folder: store, create: true)
        #expect(try opened.read { try $0.count() } == 0)
        opened.close()
        #expect(try names(in: store) == ["tenbin.sqlite"])
        // Bytes 18 and 19 of the header are the write and read format versions: 2 is WAL.
        let header = try #require(FileHandle(forReadingAtPath: store + "/tenbin.sqlite")).readData(ofLength: 20)
        #expect(Array(header.suffix(2)) == [2, 2])
        // An opener that ignores any log (a read-only mount's) sees the whole schema.
        let immutable = try Database(path: store + "/tenbin.sqlite", mode: .immutable)
        #expect(try Migrations.version(of: immutable) == Migrations.steps.count)
        #expect(try immutable.statement("SELECT count(*) FROM poster").first { $0.int(0) } == 0)
    }

    @Test func creatingWhereAnotherProcessJustMadeTheDatabaseKeepsThatOne() throws {
        let folder = try TemporaryStore()
        let path = folder.path + "/tenbin.sqlite"
        try Migrations.create(at: path, folder: folder.path)
        do {
            let database = try Database(path: path, mode: .readWrite)
            try database.execute("PRAGMA application_id = 7")
        }
        // What a process that saw no file, then lost the race to link one, does.
        try Migrations.create(at: path, folder: folder.path)
        #expect(try names(in: folder.path) == ["tenbin.sqlite"])
        let database = try Database(path: path, mode: .readWrite)
        #expect(try database.statement("PRAGMA application_id").first { $0.int(0) } == 7)
    }

    @Test func aFileLeftByAKilledCreatorOfTheSameProcessIDIsReplaced() throws {
        let folder = try TemporaryStore()
        let path = folder.path + "/tenbin.sqlite"
        try Data("half a database".utf8).write(to: URL(fileURLWithPath: "\(path).tmp-\(getpid())"))
        try Migrations.create(at: path, folder: folder.path)
        #expect(try Migrations.version(of: Database(path: path, mode: .readWrite)) == Migrations.steps.count)
        #expect(try names(in: folder.path) == ["tenbin.sqlite"])
    }
}
