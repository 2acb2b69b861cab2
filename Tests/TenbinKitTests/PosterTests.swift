import Testing

@testable import TenbinKit

@Suite struct PosterTests {
    func poster(_ good1: Int, _ good2: Int) -> Poster {
        let image = StoredImage(digest: Digest(of: [1]), format: .jpeg, width: 1, height: 1, bytes: 1)
        return Poster(
            id: 1, contents: "", hashtags: [], good1: good1, good2: good2, createdAt: Timestamp(secondsSince1970: 0),
            images: [image, image])
    }

    @Test func sharesSplitTheVotesAndAreEvenWithNone() {
        #expect(poster(3, 1).share(of: .first) == 0.75)
        #expect(poster(3, 1).share(of: .second) == 0.25)
        #expect(poster(0, 0).share(of: .first) == 0.5)
    }

    @Test func theMajorityIsTheSideWithMoreVotesAndNoneOnATie() {
        #expect(poster(3, 1).majority == .first)
        #expect(poster(1, 3).majority == .second)
        #expect(poster(2, 2).majority == nil)
    }
}
