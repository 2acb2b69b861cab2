import Testing

@testable import TenbinKit

/// Import's identity rule, through the core and a real store.
@Suite struct ImportIdentityTests {
    private func images(_ board: Board) throws -> [StoredImage] {
        try ["01-cats-or-dogs/1-cat.jpg", "01-cats-or-dogs/2-dog.jpg"].map {
            try board.writeBlob(try board.prepare(.file(Fixtures.sample($0)))).stored
        }
    }

    @Test func identicalPostersInOneBatchAreAddedOnce() throws {
        let store = try TemporaryStore()
        let board = try store.board()
        let images = try images(board)
        let a = NewPoster(contents: "q", hashtags: ["#x", "y"], images: images)
        let b = NewPoster(contents: "q", hashtags: ["y", "x"], images: images)
        let c = NewPoster(contents: "q", hashtags: ["x", "y"], images: images.reversed())
        let outcomes = try board.commitImport([a, b, a, c, b], images: [])
        #expect(outcomes == [.inserted(1), .inserted(2), .existing(1), .inserted(3), .existing(2)])
        #expect(try board.matchingPoster(NewPoster(contents: "q", hashtags: ["＃x", "y"], images: images)) == 1)
        #expect(try board.matchingPoster(NewPoster(contents: "q ", hashtags: ["x", "y"], images: images)) == nil)
        #expect(try board.count() == 3)
    }

    @Test func aFailingBatchAddsNothing() throws {
        struct Refused: Error {}
        let store = try TemporaryStore()
        let board = try store.board()
        let poster = NewPoster(contents: "", hashtags: [], images: try images(board))
        #expect(throws: Refused.self) {
            try board.store.write { writing in
                for image in poster.images { try writing.insertBlob(image, source: nil, encodingKey: "k") }
                _ = try writing.insertPoster(
                    poster, createdAt: Timestamp(secondsSince1970: 0), search: SearchRecord(contents: "", hashtags: []))
                throw Refused()
            }
        }
        #expect(try board.count() == 0)
        #expect(try board.store.read { try $0.blobRows() }.isEmpty)
    }
}
