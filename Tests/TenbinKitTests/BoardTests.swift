import Foundation
import Testing

@testable import TenbinKit
@testable import TenbinSQLite

@Suite struct BoardTests {
    let folder: TemporaryStore
    let board: Board

    init() throws {
        folder = try TemporaryStore()
        board = try folder.board()
    }

    static let cat = Fixtures.sample("01-cats-or-dogs/1-cat.jpg")
    static let dog = Fixtures.sample("01-cats-or-dogs/2-dog.jpg")
    static let sea = Fixtures.sample("09-sea-or-mountain/sea.jpg")

    func post(_ one: String = cat, _ two: String = dog, text: String = "", tags: [String] = []) throws -> Poster {
        try board.post(PosterDraft(image1: .file(one), image2: .file(two), contents: text, hashtags: tags))
    }

    func blobFiles() throws -> [Digest] { try BlobStore(storeFolder: folder.path).inventory().digests }

    @Test func aPostStoresTextTagsAndBothImages() throws {
        let poster = try post(text: "猫と犬、どっち？", tags: ["#猫", "＃犬", "猫", " "])
        #expect(poster.id == 1)
        #expect(poster.contents == "猫と犬、どっち？")
        #expect(poster.hashtags == ["猫", "犬"])
        #expect(poster.images.map(\.format) == [.jpeg, .jpeg])
        #expect(poster.createdAt.description == "2025-11-29T21:00:00Z")
        #expect(try board.poster(id: 1) == poster)
        #expect(try blobFiles().count == 2)
    }

    @Test func votesAddToOneSideAndUnknownPostersAreErrors() throws {
        let poster = try post()
        try board.vote(id: poster.id, side: .first)
        let after = try board.vote(id: poster.id, side: .second, times: 5)
        #expect((after.good1, after.good2) == (1, 5))
        #expect(throws: BoardError.noSuchPoster(99)) { try board.vote(id: 99, side: .first) }
        #expect(throws: BoardError.invalidVoteCount(0)) { try board.vote(id: poster.id, side: .first, times: 0) }
    }

    @Test func newOrderIsIdDescendingAndPopularIsVotesThenId() throws {
        let a = try post()
        let b = try post()
        let c = try post()
        try board.vote(id: a.id, side: .first, times: 3)
        try board.vote(id: b.id, side: .second, times: 3)
        #expect(try board.posters(order: .new).map(\.id) == [c.id, b.id, a.id])
        #expect(try board.posters(order: .popular).map(\.id) == [b.id, a.id, c.id])
        #expect(try board.posters(order: .new, limit: 1, offset: 1).map(\.id) == [b.id])
    }

    @Test func theSameUploadTwiceIsOneBlob() throws {
        let first = try post(Self.cat, Self.cat)
        #expect(first.images[0].digest == first.images[1].digest)
        let second = try post(Self.cat, Self.dog)
        #expect(second.images[0] == first.images[0])
        #expect(try blobFiles().count == 2)
    }

    @Test func aBadImageLeavesNoRowAndNoBlob() throws {
        for hostile in ["empty.jpg", "truncated.jpg", "huge-30000x30000.png", "animation.jpg"] {
            #expect(throws: ImageError.self) { try post(Self.sea, Fixtures.hostile(hostile)) }
            #expect(throws: ImageError.self) { try post(Fixtures.hostile(hostile), Self.sea) }
        }
        #expect(try board.count() == 0)
        #expect(try blobFiles().isEmpty)
    }

    @Test func aMissingFileIsNamedInTheError() throws {
        let error = try #require(throws: ImageError.self) { try post(Self.cat, "/no/such/file.jpg") }
        #expect(error.description == "/no/such/file.jpg: cannot be read: No such file or directory")
    }

    @Test func deleteRemovesOnlyBlobsNoOtherPosterUses() throws {
        let shared = try post(Self.cat, Self.dog)
        _ = try post(Self.cat, Self.sea)
        try board.delete(id: shared.id)
        #expect(throws: BoardError.noSuchPoster(shared.id)) { try board.poster(id: shared.id) }
        let remaining = Set(try blobFiles())
        #expect(remaining.contains(shared.images[0].digest))
        #expect(!remaining.contains(shared.images[1].digest))
        #expect(try board.check().isSound)
    }

    @Test func textWithANulCharacterIsStoredWhole() throws {
        let poster = try post(text: "before\u{0}after")
        #expect(try board.poster(id: poster.id).contents == "before\u{0}after")
    }

    @Test func idsAreNeverReused() throws {
        let first = try post()
        try board.delete(id: first.id)
        #expect(try post().id == first.id + 1)
    }

    @Test func gcRemovesUnreferencedBlobFilesAndOldTemporaryFiles() throws {
        let poster = try post()
        let blobs = BlobStore(storeFolder: folder.path)
        let stray = try blobs.write(Array("left by a killed post".utf8))
        let temporary = "\(folder.path)/blobs/\(stray.hex.prefix(2))/.tmp-dead-1-1"
        #expect(FileManager.default.createFile(atPath: temporary, contents: Data([0])))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: temporary)
        #expect(try board.check().isSound)
        #expect(try board.check().notes.count == 2)
        let report = try board.collectGarbage()
        #expect(report.removedBlobs == [stray])
        #expect(report.removedTemporaryFiles == 1)
        #expect(Set(try blobFiles()) == Set(poster.images.map(\.digest)))
        #expect(try board.check().notes.isEmpty)
    }

    @Test func aPostersPreviewCardsGoWithItAndGCRemovesThoseOfPostersGoneWithoutThem() throws {
        let kept = try post(text: "kept")
        let deleted = try post(text: "deleted")
        let gone = try post(text: "gone before its cards")
        let cards = try #require(board.previewCardFolder)
        #expect(cards.root == folder.path + "/cards")
        func card(_ poster: Int64, _ face: String) throws -> String {
            try FileSystem.makeFolders(cards.folder(poster: poster))
            let path = cards.folder(poster: poster) + "/" + PreviewCardFolder.name(poster: poster, face: face)
            #expect(FileManager.default.createFile(atPath: path, contents: Data([0xFF, 0xD8])))
            return path
        }
        let keptCard = try card(kept.id, "a1")
        let deletedCards = [try card(deleted.id, "a1"), try card(deleted.id, "b2")]
        // A card of an id that is no poster's (in a folder of its own), and temporary files of
        // interrupted writes, one old and one maybe still being written.
        let strayCard = try card(4_321, "c3")
        let oldTemporary = cards.temporaryTemplate(poster: kept.id).replacingOccurrences(of: "XXXXXX", with: "dead01")
        let newTemporary = cards.temporaryTemplate(poster: kept.id).replacingOccurrences(of: "XXXXXX", with: "live01")
        for path in [oldTemporary, newTemporary] { #expect(FileManager.default.createFile(atPath: path, contents: Data([0]))) }
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: oldTemporary)
        let unrelated = cards.folder(poster: kept.id) + "/notes.txt"
        #expect(FileManager.default.createFile(atPath: unrelated, contents: Data([0])))
        // A delete removes the poster's cards itself.
        try board.delete(id: deleted.id)
        #expect(deletedCards.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
        #expect(FileManager.default.fileExists(atPath: keptCard))
        // A poster deleted by something that left its card (an older tenbin): gc removes it.
        let goneCard = try card(gone.id, "a1")
        _ = try board.store.write { try $0.deletePoster(id: gone.id) }
        let report = try board.collectGarbage()
        #expect(report.removedCardFiles == 3, "the gone poster's card, the stray one and the old temporary file")
        for path in [goneCard, strayCard, oldTemporary] { #expect(!FileManager.default.fileExists(atPath: path), "\(path)") }
        for path in [keptCard, newTemporary, unrelated] { #expect(FileManager.default.fileExists(atPath: path), "\(path)") }
        #expect(try board.collectGarbage().removedCardFiles == 0)
    }

    @Test func checkFindsMissingAndCorruptBlobs() throws {
        let poster = try post()
        let blobs = BlobStore(storeFolder: folder.path)
        try blobs.remove(poster.images[0].digest)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: blobs.path(for: poster.images[1].digest)))
        let report = try board.check()
        #expect(!report.isSound)
        #expect(report.problems.count == 2)
        #expect(report.problems.contains { $0.contains("is missing; used by poster \(poster.id)") })
        #expect(report.problems.contains { $0.contains("corrupt; used by poster \(poster.id)") })
    }

    @Test func checkFindsASearchKeyThatNoLongerMatchesItsPoster() throws {
        let poster = try post(text: "ねこ")
        #expect(try board.check().isSound)
        let database = try Database(path: folder.path + "/tenbin.sqlite", mode: .readWrite)
        try database.execute("UPDATE search_key SET key = 'いぬ' WHERE poster_id = \(poster.id)")
        let report = try board.check()
        #expect(report.problems == ["poster \(poster.id)'s search key does not match its text"])
        try database.execute("DELETE FROM search_key WHERE poster_id = \(poster.id)")
        #expect(try board.check().problems.contains { $0.contains("has no search key") })
    }

    @Test func aPostPutsBackABlobThatGCRemovedBeforeTheCommit() throws {
        let poster = try post()
        let blobs = BlobStore(storeFolder: folder.path)
        try board.delete(id: poster.id)
        #expect(try blobFiles().isEmpty)
        // The upload table forgot the deleted blobs, so this posts afresh and restores them.
        let again = try post()
        #expect(again.images == poster.images)
        #expect(blobs.contains(again.images[0].digest))
        #expect(try board.check().isSound)
    }

    @Test func readingAStoreThatDoesNotExistCreatesNothing() throws {
        let missing = folder.path + "/never-written"
        let reader = try Board(folder: missing, create: false)
        #expect(try reader.posters().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test func manyThreadsVotingAtOnceLoseNothing() throws {
        let poster = try post()
        let boards = try (0..<4).map { _ in try folder.board() }
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            for _ in 0..<100 { _ = try? boards[index].vote(id: poster.id, side: index % 2 == 0 ? .first : .second) }
        }
        let after = try board.poster(id: poster.id)
        #expect((after.good1, after.good2) == (200, 200))
    }
}
