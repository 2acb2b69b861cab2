import Testing

@testable import TenbinKit

@Suite struct PosterStoreImportTests {
    private func images(_ board: Board) throws -> [StoredImage] {
        try ["01-cats-or-dogs/1-cat.jpg", "01-cats-or-dogs/2-dog.jpg"].map {
            try board.writeBlob(try board.prepare(.file(Fixtures.sample($0)))).stored
        }
    }

    @Test func identicalPostersInOneBatchAreAddedOnce() throws {
        let store = try TemporaryStore()
        let board = try store.board()
        let posterStore = try PosterStore(path: "\(store.path)/tenbin.sqlite", create: true)
        let images = try images(board)
        let a = NewPoster(contents: "q", hashtags: ["#x", "y"], images: images)
        let b = NewPoster(contents: "q", hashtags: ["y", "x"], images: images)
        let c = NewPoster(contents: "q", hashtags: ["x", "y"], images: images.reversed())
        let outcomes = try posterStore.importPosters([a, b, a, c, b], createdAt: Timestamp(secondsSince1970: 0), encodingKey: "k") {}
        #expect(outcomes == [.inserted(1), .inserted(2), .existing(1), .inserted(3), .existing(2)])
        #expect(try posterStore.matchingPoster(NewPoster(contents: "q", hashtags: ["＃x", "y"], images: images)) == 1)
        #expect(try posterStore.matchingPoster(NewPoster(contents: "q ", hashtags: ["x", "y"], images: images)) == nil)
        #expect(try posterStore.count() == 3)
    }

    @Test func aFailingBatchAddsNothing() throws {
        struct Refused: Error {}
        let store = try TemporaryStore()
        let board = try store.board()
        let posterStore = try PosterStore(path: "\(store.path)/tenbin.sqlite", create: true)
        let poster = NewPoster(contents: "", hashtags: [], images: try images(board))
        #expect(throws: Refused.self) {
            try posterStore.importPosters([poster], createdAt: Timestamp(secondsSince1970: 0), encodingKey: "k") { throw Refused() }
        }
        #expect(try posterStore.count() == 0)
        #expect(try posterStore.blobRows().isEmpty)
    }
}
