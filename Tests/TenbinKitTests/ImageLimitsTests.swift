import Testing

@testable import TenbinKit

/// Each limit refuses on its own: a planted bug that disabled the megapixel check went unseen
/// while every image tested was also over the side limit.
@Suite struct ImageLimitsTests {
    @Test func anImageWithinTheSideLimitButOverThePixelLimitIsRefused() {
        let limits = ImageLimits()  // 50 megapixels, 20000 a side
        #expect(limits.violation(width: 8000, height: 8000) == "8000×8000 pixels (64.0 MP) is over the limit of 50.0 megapixels")
        #expect(limits.violation(width: 20000, height: 2501) != nil, "at the side limit, 50.02 megapixels")
        #expect(limits.violation(width: 10000, height: 5001) != nil)
    }

    @Test func anImageExactlyAtEachLimitIsAccepted() {
        let limits = ImageLimits()
        #expect(limits.violation(width: 10000, height: 5000) == nil, "exactly 50 megapixels")
        #expect(limits.violation(width: 20000, height: 2500) == nil, "exactly 20000 a side and 50 megapixels")
        #expect(limits.violation(width: 20001, height: 1) != nil)
    }

    @Test func aRealUploadOverOnlyThePixelLimitIsRefusedFromItsHeaderAsOverALimit() throws {
        // 1-cat.jpg is 900×600: within a 900 side limit, one pixel over a 539,999 pixel limit.
        let path = Fixtures.sample("01-cats-or-dogs/1-cat.jpg")
        let codec = ImageCodec(limits: ImageLimits(maxPixels: 539_999, maxSide: 900))
        let error = try #require(throws: ImageError.self) { try codec.probe(try Fixtures.bytes(path), source: "1-cat.jpg") }
        #expect(error.stage == .limits)
        #expect(error.kind == .limitExceeded)
        #expect(error.description == "1-cat.jpg: 900×600 pixels (0.5 MP) is over the limit of 0.5 megapixels")
        // One pixel more of room and it passes.
        let roomy = ImageCodec(limits: ImageLimits(maxPixels: 540_000, maxSide: 900))
        #expect(try roomy.probe(try Fixtures.bytes(path), source: "1-cat.jpg").width == 900)
    }
}
