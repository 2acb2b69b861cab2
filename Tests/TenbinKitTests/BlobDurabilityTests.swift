import Foundation
import TenbinSQLite
import Testing

@testable import TenbinKit

/// The order of the file operations that make a blob durable, recorded through the blob
/// store's file-system seam: a process kill cannot show a missing flush (the page cache
/// survives the process), so these tests read the order instead.
@Suite struct BlobDurabilityTests {
    let folder: TemporaryStore
    let log = EventLog()

    init() throws {
        folder = try TemporaryStore()
    }

    private func recordingBoard(files: RecordingFileSystem? = nil) throws -> (Board, BlobStore) {
        let blobs = BlobStore(root: "\(folder.path)/blobs", files: files ?? RecordingFileSystem(log: log))
        let store = RecordingStore(try SQLiteStore(folder: folder.path, create: true), log: log)
        return (Board(Board.Configuration(storePath: folder.path), store: store, blobs: blobs), blobs)
    }

    private func samplePair(_ index: Int) -> PosterDraft {
        let images = Fixtures.sampleFolders[index].images
        return PosterDraft(image1: .file(images[0]), image2: .file(images[1]), contents: "pair \(index)")
    }

    @Test func aPostedBlobIsWrittenToATemporaryFileFsyncedRenamedAndItsFolderFsyncedBeforeTheCommit() throws {
        let (board, blobs) = try recordingBoard()
        let poster = try board.post(samplePair(0))
        let events = log.all
        for image in poster.images {
            let final = blobs.path(for: image.digest)
            let rename = try #require(events.firstIndex { if case .rename(_, final) = $0 { true } else { false } })
            guard case .rename(let temporary, _) = events[rename] else { Issue.record("not a rename"); return }
            #expect(temporary != final && temporary.contains("/.tmp-"))
            #expect(events[rename - 1] == .write(temporary, synced: true), "\(events)")
            #expect(events[rename + 1] == .syncFolder(String(final.prefix(final.count - 65))), "\(events)")
        }
        #expect(events.last == .commit(poster.images.map(\.digest).sorted { $0.hex < $1.hex }))
        #expect(!events.contains(.syncFileSystem))
        #expect(durabilityViolations(events, blobs: blobs).isEmpty)
    }

    @Test func anImportMakesEachBatchsBlobsDurableTogetherBeforeItsRowsCommit() async throws {
        let (board, blobs) = try recordingBoard()
        let options = ImportOptions(jobs: 2, batchSize: 3)
        let report = try await Importer(board: board, options: options).run(.folders(Fixtures.sample("")))
        #expect(report.imported == 10)
        let events = log.all
        let commits = events.filter { if case .commit = $0 { true } else { false } }
        #expect(commits.count >= 4)  // more when a slow machine hits the batch interval first
        #expect(durabilityViolations(events, blobs: blobs) == [])
        // No blob is flushed on its own: two syncfs per batch, whatever its size.
        #expect(!events.contains { if case .write(_, synced: true) = $0 { true } else { false } })
        #expect(!events.contains { if case .syncFolder = $0 { true } else { false } })
        #expect(events.filter { $0 == .syncFileSystem }.count <= 2 * commits.count)
        #expect(try blobs.inventory().temporaryFiles.isEmpty)
        #expect(try board.check().isSound)
    }

    @Test func theCheckerCatchesABlobRenamedBeforeItWasFlushedOrCommittedBeforeItsRenameWas() throws {
        let blobs = BlobStore(root: "\(folder.path)/blobs")
        let digest = Digest(of: [1])
        let final = blobs.path(for: digest)
        let unflushed: [FileEvent] = [.write("t", synced: false), .rename("t", to: final), .syncFileSystem, .commit([digest])]
        #expect(durabilityViolations(unflushed, blobs: blobs).first?.contains("before its contents were flushed") == true)
        let unsyncedRename: [FileEvent] = [.write("t", synced: true), .rename("t", to: final), .commit([digest])]
        #expect(durabilityViolations(unsyncedRename, blobs: blobs).first?.contains("before its rename was flushed") == true)
        let straightToName: [FileEvent] = [.write(final, synced: true), .commit([digest])]
        #expect(durabilityViolations(straightToName, blobs: blobs) == ["\(digest.hex.prefix(8)): committed without a file"])
    }

    @Test func twoWritersOfTheSameBytesAtOnceBothSucceedWithOneWholeFile() throws {
        // Both writers have written their temporary files before either renames.
        let files = RecordingFileSystem(log: log, pauseAfterWrite: Barrier(count: 2))
        let blobs = BlobStore(root: "\(folder.path)/blobs", files: files)
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let results = Locked<[Result<Digest, any Error>]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let result = Result { try blobs.write(bytes) }
            results.withLock { $0.append(result) }
        }
        let digests = try results.withLock { $0 }.map { try $0.get() }
        #expect(digests == [Digest(of: bytes), Digest(of: bytes)])
        #expect(log.all.filter { if case .rename = $0 { true } else { false } }.count == 2)
        #expect(try blobs.read(digests[0]) == bytes)
        let inventory = try blobs.inventory()
        #expect(inventory.digests == [digests[0]] && inventory.temporaryFiles.isEmpty)
    }

    @Test func twoBatchesStagingTheSameBytesAtOnceBothPublish() throws {
        let files = RecordingFileSystem(log: log, pauseAfterWrite: Barrier(count: 2))
        let blobs = BlobStore(root: "\(folder.path)/blobs", files: files)
        let bytes = Array(repeating: UInt8(42), count: 5000)
        let results = Locked<[Result<Void, any Error>]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let result = Result { try blobs.publish([try blobs.stage(bytes)]) }
            results.withLock { $0.append(result) }
        }
        for result in results.withLock({ $0 }) { try result.get() }
        #expect(try blobs.read(Digest(of: bytes)) == bytes)
        #expect(try blobs.inventory().temporaryFiles.isEmpty)
    }

    @Test func aStagedBlobIsInvisibleUntilPublishedAndDiscardingLeavesNothing() throws {
        let blobs = BlobStore(root: "\(folder.path)/blobs", files: RecordingFileSystem(log: log))
        let kept = try blobs.stage([1, 2, 3])
        let dropped = try blobs.stage([4, 5, 6])
        #expect(!blobs.contains(kept.digest) && !blobs.contains(dropped.digest))
        #expect(try blobs.inventory().temporaryFiles.count == 2)
        try blobs.publish([kept, kept])
        blobs.discard([kept, dropped])
        #expect(blobs.contains(kept.digest) && !blobs.contains(dropped.digest))
        let inventory = try blobs.inventory()
        #expect(inventory.digests == [kept.digest] && inventory.temporaryFiles.isEmpty)
        // Staging bytes already stored writes nothing.
        #expect(try blobs.stage([1, 2, 3]).temporary == nil)
    }

    @Test func aFailedFsyncFailsThePostNamingTheBlobAndCommitsNothing() throws {
        let (board, _) = try recordingBoard(files: RecordingFileSystem(log: log, failing: ["fsync"]))
        #expect {
            try board.post(samplePair(0))
        } throws: { error in
            "\(error)".hasPrefix("\(folder.path)/blobs/") && "\(error)".hasSuffix("cannot write: Input/output error")
        }
        #expect(try board.count() == 0)
        #expect(try BlobStore(root: "\(folder.path)/blobs").inventory().temporaryFiles.isEmpty)
    }

    @Test func aFailedFlushOfABatchFailsTheImportBeforeItsRowsCommit() async throws {
        let (board, _) = try recordingBoard(files: RecordingFileSystem(log: log, failing: ["syncfs"]))
        await #expect(throws: BlobError.self) {
            try await Importer(board: board, options: ImportOptions(jobs: 1)).run(.folders(Fixtures.sample("")))
        }
        #expect(try board.count() == 0)
        #expect(!log.all.contains { if case .commit = $0 { true } else { false } })
        // The import removed the temporary files of the batch it could not publish.
        #expect(try BlobStore(root: "\(folder.path)/blobs").inventory().temporaryFiles.isEmpty)
    }
}
