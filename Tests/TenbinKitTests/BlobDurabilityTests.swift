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
        return (Board(Board.Configuration(), store: store, blobs: blobs), blobs)
    }

    private func samplePair(_ index: Int) -> PosterDraft {
        let images = Fixtures.sampleFolders[index].images
        return PosterDraft(image1: .file(images[0]), image2: .file(images[1]), contents: "pair \(index)")
    }

    @Test func aPostedBlobIsWrittenToATemporaryFileFlushedRenamedAndItsFoldersFlushedBeforeTheCommit() throws {
        let (board, blobs) = try recordingBoard()
        let poster = try board.post(samplePair(0))
        let events = log.all
        for image in poster.images {
            let final = blobs.path(for: image.digest)
            let rename = try #require(events.firstIndex { if case .rename(_, final) = $0 { true } else { false } })
            guard case .rename(let temporary, _) = events[rename] else { Issue.record("not a rename"); return }
            #expect(temporary != final && temporary.contains("/.tmp-"))
            let write = try #require(events.firstIndex(of: .write(temporary)))
            #expect(events[write..<rename].contains(.flush(temporary)), "\(events)")
            #expect(events[rename...].contains(.syncFolder(parentFolder(final))), "\(events)")
        }
        // The first blob created the blob root: its entry in the store folder is flushed too.
        #expect(events.contains(.makeFolder(blobs.root)) && events.contains(.syncFolder(folder.path)), "\(events)")
        #expect(events.last == .commit(poster.images.map(\.digest).sorted { $0.hex < $1.hex }))
        #expect(durabilityViolations(events, blobs: blobs).isEmpty)
    }

    @Test func anImportFlushesEachBlobOnceAndEachFolderOncePerBatchBeforeItsRowsCommit() async throws {
        let (board, blobs) = try recordingBoard()
        let options = ImportOptions(jobs: 2, batchSize: 3)
        let report = try await Importer(board: board, options: options).run(.folders(Fixtures.sample("")))
        #expect(report.imported == 10)
        let events = log.all
        let commits = events.filter { if case .commit = $0 { true } else { false } }
        // Several batches: one is committed once it holds 3 posters, and holds more when more
        // became ready at once (4 commits in parallel runs, 3 in a run of one test at a time),
        // or fewer when a slow machine hits the batch interval first.
        #expect(commits.count >= 2)
        #expect(durabilityViolations(events, blobs: blobs) == [])
        // Each written file is flushed exactly once (or closed unflushed, when discarded).
        for case .write(let path) in events {
            #expect(events.filter { $0 == .flush(path) || $0 == .close(path) }.count == 1, "\(path)")
        }
        // Between two commits, no folder is flushed twice.
        var synced: [String] = []
        for event in events {
            switch event {
            case .commit: synced = []
            case .syncFolder(let path):
                #expect(!synced.contains(path), "\(path) flushed twice in one batch: \(events)")
                synced.append(path)
            default: break
            }
        }
        #expect(try blobs.inventory().temporaryFiles.isEmpty)
        #expect(try board.check().isSound)
    }

    @Test func stagingReturnsBeforeItsFlushEndsAndPublishWaitsForIt() throws {
        let gate = DispatchSemaphore(value: 0)
        let blobs = BlobStore(root: "\(folder.path)/blobs", files: RecordingFileSystem(log: log, holdFlushes: gate))
        let staged = try blobs.stage(Array(repeating: 7, count: 50_000))
        // The flush is held until the gate opens: stage returned without waiting for it.
        log.append(.mark("staged"))
        gate.signal()
        try blobs.publish([staged])
        log.append(.commit([staged.digest]))
        let events = log.all
        let temporary = try #require(staged.temporary)
        let flush = try #require(events.firstIndex(of: .flush(temporary)))
        #expect(try #require(events.firstIndex(of: .mark("staged"))) < flush)
        #expect(events[flush...].contains { if case .rename = $0 { true } else { false } })
        #expect(durabilityViolations(events, blobs: blobs) == [])
        #expect(try blobs.read(staged.digest) == Array(repeating: 7, count: 50_000))
    }

    @Test func theCheckerCatchesEachMissingFlush() throws {
        let blobs = BlobStore(storeFolder: folder.path)
        let digest = Digest(of: [1])
        let final = blobs.path(for: digest)
        let folder = parentFolder(final)
        let unflushed: [FileEvent] = [.write("t"), .rename("t", to: final), .syncFolder(folder), .flush("t"), .commit([digest])]
        #expect(durabilityViolations(unflushed, blobs: blobs) == ["\(digest.hex.prefix(8)): renamed before its contents were flushed"])
        let unsyncedRename: [FileEvent] = [.write("t"), .flush("t"), .syncFolder(folder), .rename("t", to: final), .commit([digest])]
        #expect(durabilityViolations(unsyncedRename, blobs: blobs) == ["\(digest.hex.prefix(8)): committed before its rename was flushed"])
        let newFolder: [FileEvent] = [
            .makeFolder(folder), .write("t"), .flush("t"), .rename("t", to: final), .syncFolder(folder), .commit([digest]),
        ]
        #expect(durabilityViolations(newFolder, blobs: blobs).first?.contains("new folder \(folder) was flushed in its parent") == true)
        let sound = newFolder.dropLast() + [.syncFolder(blobs.root), .commit([digest])]
        #expect(durabilityViolations(Array(sound), blobs: blobs) == [])
        let straightToName: [FileEvent] = [.write(final), .flush(final), .commit([digest])]
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

    @Test func aBlobAnotherWriterNamedIsNotTrustedUntilItsFolderIsFlushed() throws {
        let blobs = BlobStore(root: "\(folder.path)/blobs", files: RecordingFileSystem(log: log))
        // Another writer's name, renamed into place and its folder not flushed yet.
        let other = Array(repeating: UInt8(1), count: 3000)
        let otherPath = blobs.path(for: Digest(of: other))
        try FileManager.default.createDirectory(atPath: parentFolder(otherPath), withIntermediateDirectories: true)
        try Data(other).write(to: URL(fileURLWithPath: otherPath))
        // Found at stage time: nothing is written, but publish flushes the folder.
        let found = try blobs.stage(other)
        #expect(found.temporary == nil)
        log.append(.mark("staged"))
        try blobs.publish([found])
        #expect(log.all.split(separator: .mark("staged")).last?.contains(.syncFolder(parentFolder(otherPath))) == true, "\(log.all)")
        // Named by the other writer between our stage and our publish: our copy is removed
        // unrenamed, and the folder is flushed all the same.
        let late = Array(repeating: UInt8(2), count: 3000)
        let latePath = blobs.path(for: Digest(of: late))
        let staged = try blobs.stage(late)
        try Data(late).write(to: URL(fileURLWithPath: latePath))
        log.append(.mark("named by the other"))
        try blobs.publish([staged])
        let after = log.all.split(separator: .mark("named by the other")).last ?? []
        let temporary = try #require(staged.temporary)
        #expect(after.contains(.syncFolder(parentFolder(latePath))) && after.contains(.remove(temporary)), "\(after)")
        #expect(!after.contains { if case .rename = $0 { true } else { false } })
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

    @Test func aFailedFlushFailsThePostNamingTheBlobAndCommitsNothing() throws {
        let (board, _) = try recordingBoard(files: RecordingFileSystem(log: log, failing: ["flush"]))
        #expect {
            try board.post(samplePair(0))
        } throws: { error in
            "\(error)".hasPrefix("\(folder.path)/blobs/") && "\(error)".hasSuffix("cannot flush to the disk: Input/output error")
        }
        #expect(try board.count() == 0)
        #expect(try BlobStore(storeFolder: folder.path).inventory().temporaryFiles.isEmpty)
    }

    @Test(arguments: ["flush", "syncFolder"])
    func aFailedFlushOfABatchFailsTheImportNamingABlobBeforeItsRowsCommit(_ failing: String) async throws {
        let (board, blobs) = try recordingBoard(files: RecordingFileSystem(log: log, failing: [failing]))
        await #expect {
            try await Importer(board: board, options: ImportOptions(jobs: 1)).run(.folders(Fixtures.sample("")))
        } throws: { error in
            let text = "\(error)"
            let named = Digest(hex: String(text.prefix { $0 != ":" }.suffix(64)))
            return error is BlobError && text.hasPrefix("\(blobs.root)/") && named != nil
                && text.hasSuffix("cannot flush to the disk: Input/output error")
        }
        #expect(try board.count() == 0)
        #expect(!log.all.contains { if case .commit = $0 { true } else { false } })
        // The import removed the temporary files of the batch it could not publish.
        #expect(try BlobStore(storeFolder: folder.path).inventory().temporaryFiles.isEmpty)
    }
}
