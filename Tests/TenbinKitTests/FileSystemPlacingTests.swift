import Dispatch
import Foundation
import TenbinKit
import Testing

/// `FileSystem.place`: each way gives a finished file its name and never replaces a file
/// that has it. (The FAT file systems that refuse the first two ways are in FATStoreTests.)
@Suite(.timeLimit(.minutes(10))) struct FileSystemPlacingTests {
    func write(_ text: String, to path: String) {
        #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
    }

    func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test(arguments: FileSystem.Placing.allCases)
    func eachWayPlacesAFileUnderAFreeNameAndKeepsAFileThatHasItAlready(way: FileSystem.Placing) throws {
        let folder = try TemporaryStore()
        let (staging, path) = (folder.path + "/new.tmp", folder.path + "/new")
        write("mine", to: staging)
        #expect(try FileSystem.place(staging, at: path, folder: folder.path, ways: [way]) == .placed(way))
        #expect(contents(path) == "mine")

        write("late", to: staging)
        #expect(try FileSystem.place(staging, at: path, folder: folder.path, ways: [way]) == .taken)
        #expect(contents(path) == "mine")
        #expect(contents(staging) == "late", "a staging file that lost is left for its owner to remove")
    }

    @Test func aWayTheFileSystemRefusesFallsThroughToTheNextAndNoneLeftIsUnsupported() throws {
        let folder = try TemporaryStore()
        let (staging, path) = (folder.path + "/new.tmp", folder.path + "/new")
        write("mine", to: staging)
        #expect(throws: FileSystem.PlacingFailure.unsupported([])) {
            try FileSystem.place(staging, at: path, folder: folder.path, ways: [])
        }
        // A missing staging file is a failure of its own, not a reason to try another way.
        #expect(throws: FileSystem.PlacingFailure.failed(ENOENT)) {
            try FileSystem.place(folder.path + "/absent", at: path, folder: folder.path, ways: [.link, .lockedRename])
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func manyCreatorsRenamingUnderTheLockAtOnceLeaveExactlyOneWinnerInPlace() throws {
        for _ in 0..<20 {
            let folder = try TemporaryStore()
            let (root, path) = (folder.path, folder.path + "/new")
            let creators = 8
            for index in 0..<creators { write("creator \(index)", to: "\(path).tmp-\(index)") }
            let results = Locked<[Int: FileSystem.Placed]>([:])
            DispatchQueue.concurrentPerform(iterations: creators) { index in
                let placed = try? FileSystem.place("\(path).tmp-\(index)", at: path, folder: root, ways: [.lockedRename])
                results.withLock { $0[index] = placed }
            }
            let all = results.withLock { $0 }
            let winners = all.filter { $0.value == .placed(.lockedRename) }.map(\.key)
            #expect(winners.count == 1)
            #expect(all.values.filter { $0 == .taken }.count == creators - 1)
            #expect(contents(path) == "creator \(winners.first ?? -1)")
        }
    }
}
