import Foundation
import Synchronization
import Testing

@testable import TenbinKit

@Suite struct ImporterTests {
    /// Runs an import and returns its report and the last progress reported.
    private func run(
        _ source: ImportSource, into board: Board, _ options: ImportOptions = ImportOptions(jobs: 2)
    ) async throws -> (ImportReport, ImportProgress?) {
        let last = Mutex<ImportProgress?>(nil)
        let report = try await Importer(board: board, options: options).run(source) { progress in last.withLock { $0 = progress } }
        return (report, last.withLock { $0 })
    }

    private var samples: ImportSource { .folders(Fixtures.sample("")) }

    @Test func theSampleFoldersBecomeTenPostersInFolderOrder() async throws {
        let store = try TemporaryStore()
        let board = try store.board()
        let (report, progress) = try await run(samples, into: board)
        #expect((report.imported, report.skipped, report.failed) == (10, 0, 0))
        #expect(report.items.map(\.id) == (1...10).map { Int64($0) })
        #expect(report.items[0] == ImportItem(source: Fixtures.sample("01-cats-or-dogs"), status: .imported, id: 1))
        let first = try board.poster(id: 1)
        #expect(first.contents == "猫と犬、どっちが好き？")
        #expect(first.hashtags == ["猫", "犬", "ペット"])
        #expect(try board.poster(id: 10).contents == "")
        #expect(progress == ImportProgress(done: 10, total: 10, images: 20, elapsed: progress?.elapsed ?? .zero))
        #expect(try board.check().isSound)
    }

    @Test func aSecondRunAddsNothingAndNamesTheExistingPosters() async throws {
        let store = try TemporaryStore()
        let board = try store.board()
        _ = try await run(samples, into: board)
        let (again, _) = try await run(samples, into: board, ImportOptions(jobs: 1))
        #expect((again.imported, again.skipped, again.failed) == (0, 10, 0))
        #expect(again.items.map(\.status) == Array(repeating: .skipped, count: 10))
        #expect(again.items.map(\.id) == (1...10).map { Int64($0) })
        #expect(try board.count() == 10)
    }

    @Test func aDryRunWritesNothingNotEvenTheStoreFolder() async throws {
        let scratch = try TemporaryStore()
        let path = "\(scratch.path)/never-made"
        let board = try Board(folder: path, create: false)
        let (report, _) = try await run(samples, into: board, ImportOptions(dryRun: true))
        #expect((report.imported, report.skipped, report.failed) == (10, 0, 0))
        #expect(report.items.allSatisfy { $0.id == nil })
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aDryRunOnAFilledStoreReportsWhatWouldBeSkippedAndChangesNothing() async throws {
        let store = try TemporaryStore()
        let board = try store.board()
        _ = try await run(.folders(Fixtures.sample("")), into: board)
        let folder = try ImportFolder()
        try folder.posterFolder("new", text: "a new question")
        try folder.copy(sample: "01-cats-or-dogs/1-cat.jpg", to: "same/1.jpg")
        try folder.copy(sample: "01-cats-or-dogs/2-dog.jpg", to: "same/2.jpg")
        try folder.copy(sample: "01-cats-or-dogs/post.txt", to: "same/post.txt")
        let before = try FileManager.default.subpathsOfDirectory(atPath: store.path).sorted()
        let (report, _) = try await run(.folders(folder.path), into: board, ImportOptions(dryRun: true))
        #expect(report.items.map(\.status) == [.imported, .skipped])
        #expect(report.items.map(\.id) == [nil, 1])
        #expect(try FileManager.default.subpathsOfDirectory(atPath: store.path).sorted() == before)
        #expect(try board.count() == 10)
    }

    @Test func aDryRunTellsDuplicatesApartByTheSameRuleAsTheImport() async throws {
        // The same question typed composed (が) and decomposed (か + U+3099): Swift's String
        // calls them equal, a store compares bytes and keeps both. A repeated folder is a
        // duplicate in both runs.
        let folder = try ImportFolder()
        try folder.posterFolder("a", text: "が")
        try folder.posterFolder("b", text: "か\u{3099}")
        try folder.posterFolder("c", text: "が")
        let store = try TemporaryStore()
        let board = try store.board()
        let (dry, _) = try await run(.folders(folder.path), into: board, ImportOptions(dryRun: true))
        let (real, _) = try await run(.folders(folder.path), into: board)
        #expect(dry.items.map(\.status) == [.imported, .imported, .skipped])
        #expect(real.items.map(\.status) == dry.items.map(\.status))
        #expect(try board.count() == 2)
    }

    @Test func failingFoldersAreReportedAndTheRestIsImported() async throws {
        let folder = try ImportFolder()
        try folder.posterFolder("a-good", text: "good\n#ok")
        try folder.copy(sample: "01-cats-or-dogs/1-cat.jpg", to: "b-one/only.jpg")
        try folder.copy(sample: "02-sunrise-sunset/morning.jpg", to: "c-truncated/1.jpg")
        try folder.write("c-truncated/2.jpg", Array(try Fixtures.bytes(Fixtures.sample("02-sunrise-sunset/evening.jpg")).prefix(2000)))
        try folder.copy(sample: "02-sunrise-sunset/morning.jpg", to: "d-bomb/1.jpg")
        try folder.write("d-bomb/2.png", Self.pngHeader(width: 30000, height: 30000))
        try folder.copy(sample: "08-kinoko-takenoko/きのこ.jpg", to: "e 日本語 フォルダ/き の こ.jpg")
        try folder.copy(sample: "08-kinoko-takenoko/たけのこ.jpg", to: "e 日本語 フォルダ/た け の こ.jpg")
        try folder.write("e 日本語 フォルダ/post.txt", [0xEF, 0xBB, 0xBF] + Array("きのこ？\r\nたけのこ？\r\n＃お菓子 #チョコ\r\n".utf8))
        let store = try TemporaryStore()
        let board = try store.board()
        let (report, _) = try await run(.folders(folder.path), into: board, ImportOptions(jobs: 3))
        #expect((report.imported, report.skipped, report.failed) == (2, 0, 3))
        #expect(report.items.map(\.status) == [.imported, .failed, .failed, .failed, .imported])
        #expect(report.items[1].error == "holds 1 image (only.jpg); a poster needs exactly 2")
        #expect(report.items[2].error?.hasPrefix("2.jpg: JPEG") == true)
        #expect(report.items[3].error?.hasPrefix("2.png: ") == true)
        #expect(report.items[3].error?.contains("30000×30000") == true)
        #expect(report.items[4].source == "\(folder.path)/e 日本語 フォルダ")
        let japanese = try board.poster(id: 2)
        #expect(japanese.contents == "きのこ？\nたけのこ？")
        #expect(japanese.hashtags == ["お菓子", "チョコ"])
        #expect(try board.check().isSound)
    }

    @Test func aManifestImportsWithRelativePathsAndReportsBadLines() async throws {
        let folder = try ImportFolder()
        try folder.copy(sample: "01-cats-or-dogs/1-cat.jpg", to: "images/猫 1.jpg")
        try folder.copy(sample: "01-cats-or-dogs/2-dog.jpg", to: "images/dog.jpg")
        let absolute = Fixtures.sample("04-logos/logo-rgba.png")
        let lines = [
            ##"{"image1": "images/猫 1.jpg", "image2": "images/dog.jpg", "contents": "cat or dog", "hashtags": ["#pets"]}"##,
            "{oops",
            #"{"image1": "images/dog.jpg", "image2": "\#(absolute)", "contents": "dog or logo"}"#,
            "",
            #"{"image1": "images/猫 1.jpg", "image2": "images/dog.jpg", "contents": "cat or dog", "hashtags": ["pets"]}"#,
            #"{"image1": "images/missing.jpg", "image2": "images/dog.jpg"}"#,
            #"{"image1": "images/dog.jpg", "image2": "images/猫 1.jpg", "contents": "cat or dog", "hashtags": ["pets"]}"#,
        ]
        let manifest = try folder.write("posters.jsonl", text: lines.joined(separator: "\n") + "\n")
        let store = try TemporaryStore()
        let board = try store.board()
        let (report, progress) = try await run(.manifest(manifest), into: board)
        #expect(report.items.map(\.source) == [1, 2, 3, 5, 6, 7].map { "\(manifest):\($0)" })
        #expect(report.items.map(\.status) == [.imported, .failed, .imported, .skipped, .failed, .imported])
        #expect(report.items.map(\.id) == [1, nil, 2, 1, nil, 3])
        #expect(report.items[1].error?.hasPrefix("line is not valid JSON: ") == true)
        #expect(report.items[4].error == "images/missing.jpg: cannot be read: No such file or directory")
        #expect(progress?.total == 6)
        #expect(progress?.images == 4, "each distinct path is read once")
        #expect(try board.poster(id: 3).images.map(\.digest) == (try board.poster(id: 1).images.map(\.digest)).reversed())
    }

    @Test func aMillionStyleManifestReadsEachImageOnceAndSkipsDuplicateLines() async throws {
        let folder = try ImportFolder()
        let images = ["01-cats-or-dogs/1-cat.jpg", "01-cats-or-dogs/2-dog.jpg", "04-logos/logo-rgba.png"].map(Fixtures.sample)
        var lines: [String] = []
        for index in 0..<3000 {
            let first = images[index % 3]
            let second = images[(index + 1) % 3]
            lines.append(
                #"{"image1": "\#(first)", "image2": "\#(second)", "contents": "q\#(index % 100)", "hashtags": ["t\#(index % 7)"]}"#)
        }
        let manifest = try folder.write("m.jsonl", text: lines.joined(separator: "\n"))
        let store = try TemporaryStore()
        let board = try store.board()
        let options = ImportOptions(jobs: 2, listsEveryItem: false, batchSize: 250)
        let (report, progress) = try await run(.manifest(manifest), into: board, options)
        // Lines repeat every lcm(3, 100, 7) = 2100 lines: the last 900 repeat the first 900.
        #expect((report.imported, report.skipped, report.failed) == (2100, 900, 0))
        #expect(report.items.isEmpty)
        #expect(progress?.images == 3)
        #expect(try board.count() == report.imported)
        let (again, _) = try await run(.manifest(manifest), into: board, options)
        #expect((again.imported, again.skipped, again.failed) == (0, 3000, 0))
    }

    /// A batch's search records are made on every core in parts: each poster of a batch
    /// larger than a part is found by its own words, as written and by reading, and by nothing
    /// of another's.
    @Test func eachPosterOfALargeBatchIsFoundByItsOwnTextAndReading() async throws {
        let folder = try ImportFolder()
        let images = ["01-cats-or-dogs/1-cat.jpg", "01-cats-or-dogs/2-dog.jpg"].map(Fixtures.sample)
        let lines = (0..<700).map { index in
            #"{"image1": "\#(images[0])", "image2": "\#(images[1])", "contents": "猫 word\#(index)x", "hashtags": ["tag\#(index)y"]}"#
        }
        let manifest = try folder.write("m.jsonl", text: lines.joined(separator: "\n"))
        let store = try TemporaryStore()
        let board = try store.board()
        let (report, _) = try await run(.manifest(manifest), into: board, ImportOptions(jobs: 2, listsEveryItem: false, batchSize: 700))
        #expect(report.imported == 700)
        for index in [0, 255, 256, 511, 512, 699] {
            let id = Int64(index + 1)
            #expect(try board.search(query: "word\(index)x", limit: 5).map(\.id) == [id], "poster \(id)")
            #expect(try board.search(query: "#tag\(index)y", limit: 5).map(\.id) == [id], "poster \(id)")
        }
        if SearchReadings.unavailable == nil { #expect(try board.search(query: "ねこ", limit: 1000).count == 700) }
    }

    @Test func postersDifferingOnlyInHashtagsOrTheirOrderAreNotSkipped() async throws {
        let folder = try ImportFolder()
        try folder.posterFolder("a", text: "same\n#x #y")
        try folder.posterFolder("b", text: "same\n#y #x")
        try folder.posterFolder("c", text: "same\n#x")
        try folder.posterFolder("d", text: "same\n#x\n#y")
        let store = try TemporaryStore()
        let (report, _) = try await run(.folders(folder.path), into: try store.board())
        #expect(report.items.map(\.status) == [.imported, .imported, .imported, .skipped])
        #expect(report.items[3].id == 1)
    }

    @Test func theResultDoesNotDependOnJobsOrBatchSize() async throws {
        var results: [[String]] = []
        for options in [ImportOptions(jobs: 1), ImportOptions(jobs: 4, batchSize: 3, window: 2)] {
            let store = try TemporaryStore()
            let board = try store.board()
            _ = try await run(samples, into: board, options)
            results.append(try board.posters(limit: 20).reversed().map { "\($0.id) \($0.contents) \($0.images.map(\.digest.hex))" })
        }
        #expect(results[0].count == 10)
        #expect(results[0] == results[1])
    }

    @Test func aBlobRemovedBeforeTheCommitIsWrittenAgain() throws {
        let store = try TemporaryStore()
        let board = try store.board()
        let memo = ImageMemo()
        let images = try ["01-cats-or-dogs/1-cat.jpg", "01-cats-or-dogs/2-dog.jpg"].map {
            try board.prepareImport(Fixtures.sample($0), writing: true, memo: memo)
        }
        try BlobStore(storeFolder: store.path).remove(images[0].stored.digest)
        let poster = NewPoster(contents: "", hashtags: [], images: images.map(\.stored), sources: images.map(\.prepared.source))
        #expect(try board.commitImport([poster, poster], images: images) == [.inserted(1), .existing(1)])
        #expect(try board.check().isSound)
    }

    /// A tiny PNG whose header claims the given size: only its header is valid, which is all
    /// a limit check reads.
    static func pngHeader(width: UInt32, height: UInt32) -> [UInt8] {
        func be(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in body {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            return be(UInt32(data.count)) + body + be(~crc)
        }
        // A zlib stream holding one stored deflate block of one zero byte.
        let deflated: [UInt8] = [0x78, 0x01, 0x01, 0x01, 0x00, 0xFE, 0xFF, 0x00, 0x00, 0x01, 0x00, 0x01]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", be(width) + be(height) + [8, 2, 0, 0, 0])
            + chunk("IDAT", deflated) + chunk("IEND", [])
    }
}
