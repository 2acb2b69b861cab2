import Foundation
import Testing

@testable import TenbinKit

/// ``PosterTextLimits`` on every backend, through `Board` only: text over a limit is refused
/// by every path that gives a poster new text, writing nothing, while posters stored over the
/// limits by an older version stay whole.
@Suite(.timeLimit(.minutes(10))) struct PosterTextLimitContractTests {
    static let longQuestion = String(repeating: "長", count: 100_000)  // 300,000 bytes
    static let manyHashtags = (0..<5001).map { "tag\($0)" }
    static let longHashtag = String(repeating: "猫", count: 70)  // 210 bytes

    /// Every kind of text over a limit, with the message its refusal must read.
    static let overLimits: [(contents: String, hashtags: [String], message: String)] = [
        (longQuestion, [], "the question is longer than 4,096 bytes"),
        ("", manyHashtags, "a poster has at most 32 hashtags"),
        ("ok", ["ok", "#" + longHashtag], "the hashtag \"\(String(repeating: "猫", count: 20))…\" is longer than 200 bytes"),
    ]

    /// The files under a store's blob folder (staged or named).
    static func blobFiles(_ store: TemporaryStore) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: store.path + "/blobs")
        var files: [String] = []
        while let name = enumerator?.nextObject() as? String {
            if enumerator?.fileAttributes?[.type] as? FileAttributeType == .typeRegular { files.append(name) }
        }
        return files
    }

    @Test(arguments: BackendUnderTest.all)
    func textOverALimitIsNeverPostedAndWritesNothing(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        for (contents, hashtags, message) in Self.overLimits {
            let draft = PosterDraft(
                image1: .file(StoreContractTests.cat), image2: .file(StoreContractTests.dog), contents: contents, hashtags: hashtags)
            let error = try #require(throws: PosterTextError.self) { try board.post(draft) }
            #expect(error.description == message)
            #expect(ErrorKind.of(error) == .invalidInput)
        }
        let longAlt = PosterDraft(
            image1: .file(StoreContractTests.cat), image2: .file(StoreContractTests.dog), alt2: String(repeating: "猫", count: 334))
        let error = try #require(throws: PosterTextError.self) { try board.post(longAlt) }
        #expect(error.description == "the alt text of image2 is longer than 1,000 bytes")
        #expect(try board.count() == 0)
        #expect(Self.blobFiles(store) == [], "the images were refused before they were stored")
        #expect(try board.check().isSound)
    }

    @Test(arguments: BackendUnderTest.all)
    func anEditOverALimitChangesNothing(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let poster = try board.quickPost("猫か犬か", hashtags: ["猫"])
        for (contents, hashtags, message) in Self.overLimits {
            let error = try #require(throws: PosterTextError.self) {
                try board.edit(id: poster.id, contents: contents.isEmpty ? nil : contents, hashtags: hashtags.isEmpty ? nil : hashtags)
            }
            #expect(error.description == message)
        }
        #expect(try board.poster(id: poster.id) == poster)
        #expect(try board.search(query: "長").isEmpty)
    }

    @Test(arguments: BackendUnderTest.all)
    func aPosterStoredOverTheLimitsByAnOlderVersionStillWorks(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let real = try board.post(PosterDraft(image1: .file(StoreContractTests.cat), image2: .file(StoreContractTests.dog)))
        // Written the way an older version wrote it, without the core's check.
        let old = try board.quickPost([(Self.longQuestion, Self.manyHashtags)], images: real.images)[0]
        #expect(old.contents.utf8.count == 300_000 && old.hashtags.count == 5001)
        #expect(try board.poster(id: old.id) == old)
        #expect(try board.posters() == [old, real])
        #expect(try board.search(query: "tag4999").map(\.id) == [old.id])
        #expect(try board.vote(id: old.id, side: .second, times: 2).good2 == 2)
        #expect(JSON.poster(try board.poster(id: old.id)).contains("\"tag5000\""))
        // A copy keeps it as it is.
        let targetStore = try TemporaryStore()
        let target = try backend.board(targetStore)
        _ = try board.copy(to: target)
        #expect(try target.poster(id: old.id) == board.poster(id: old.id))
        // An edit of one field within the limits leaves the other as it was; new text over a
        // limit is still refused.
        let edited = try board.edit(id: old.id, contents: "短く")
        #expect(edited.contents == "短く" && edited.hashtags == Self.manyHashtags && edited.good2 == 2)
        #expect(throws: PosterTextError.tooManyHashtags(count: 5001)) { try board.edit(id: old.id, hashtags: Self.manyHashtags) }
        #expect(try board.edit(id: old.id, hashtags: ["猫"]).hashtags == ["猫"])
        #expect(try board.check().isSound)
    }

    @Test(arguments: BackendUnderTest.all)
    func aManifestLineOrPosterFolderOverALimitFailsAloneAndTheRestIsImported(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        let board = try backend.board(store)
        let folder = try ImportFolder()
        try folder.copy(sample: "01-cats-or-dogs/1-cat.jpg", to: "cat.jpg")
        try folder.copy(sample: "01-cats-or-dogs/2-dog.jpg", to: "dog.jpg")
        func line(_ contents: String, _ hashtags: [String]) -> String {
            let tags = hashtags.map { "\"\($0)\"" }.joined(separator: ", ")
            return #"{"image1": "cat.jpg", "image2": "dog.jpg", "contents": "\#(contents)", "hashtags": [\#(tags)]}"#
        }
        let lines = [line("first", ["a"])] + Self.overLimits.map { line($0.contents, $0.hashtags) } + [line("last", ["b"])]
        let manifest = try folder.write("posters.jsonl", text: lines.joined(separator: "\n"))
        let dryRun = try await Importer(board: board, options: ImportOptions(jobs: 2, dryRun: true)).run(.manifest(manifest)) { _ in }
        #expect((dryRun.imported, dryRun.skipped, dryRun.failed) == (2, 0, 3))
        #expect(try board.count() == 0)
        let report = try await Importer(board: board, options: ImportOptions(jobs: 2)).run(.manifest(manifest)) { _ in }
        #expect((report.imported, report.skipped, report.failed) == (2, 0, 3))
        #expect(report.items.map(\.source) == (1...5).map { "\(manifest):\($0)" })
        #expect(report.items.map(\.error) == [nil] + Self.overLimits.map(\.message) + [nil])
        #expect(try board.posters().map(\.contents) == ["last", "first"])

        // Poster folders: the same rule for their post.txt.
        let folders = try ImportFolder()
        try folders.posterFolder("a-long", text: Self.longQuestion)
        try folders.posterFolder("b-many", text: Self.manyHashtags.map { "#" + $0 }.joined(separator: " "))
        try folders.posterFolder("c-fine", text: "fine\n#ok")
        let second = try await Importer(board: board, options: ImportOptions(jobs: 2)).run(.folders(folders.path)) { _ in }
        #expect((second.imported, second.skipped, second.failed) == (1, 0, 2))
        #expect(second.items.map(\.error) == [Self.overLimits[0].message, Self.overLimits[1].message, nil])
        #expect(try board.count() == 3)
        #expect(try board.check().isSound)
    }
}
