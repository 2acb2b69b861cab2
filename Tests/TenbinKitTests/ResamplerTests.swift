import Testing

@testable import TenbinKit

@Suite struct ResamplerTests {
    @Test func fittingKeepsTheAspectRatioWithinTheMaximumEdge() {
        #expect(Resampler.fitting(width: 4000, height: 3000, maxEdge: 2048) == (2048, 1536))
        #expect(Resampler.fitting(width: 1800, height: 2400, maxEdge: 2048) == (1536, 2048))
        #expect(Resampler.fitting(width: 800, height: 600, maxEdge: 2048) == (800, 600))
        #expect(Resampler.fitting(width: 10000, height: 1, maxEdge: 100) == (100, 1))
    }

    @Test func halvingAveragesEachTwoByTwoBlock() {
        let image = PixelBuffer(width: 4, height: 2, channels: 1, pixels: [0, 100, 200, 200, 100, 200, 0, 0])
        let half = Resampler.resize(image, width: 2, height: 1)
        #expect(half.pixels == [100, 100])
    }

    @Test func aUniformImageStaysUniformAtAnyScale() {
        let image = PixelBuffer(width: 97, height: 61, channels: 3, pixels: [UInt8](repeating: 77, count: 97 * 61 * 3))
        let scaled = Resampler.resize(image, width: 40, height: 13)
        #expect(scaled.pixels.allSatisfy { $0 == 77 })
    }

    @Test func theSameSizeReturnsTheSamePixels() {
        let image = PixelBuffer(width: 2, height: 2, channels: 4, pixels: Array(0..<16))
        #expect(Resampler.resize(image, width: 2, height: 2) == image)
    }
}
