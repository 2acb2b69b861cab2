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

    @Test(arguments: [(61, 61, 13), (61, 30, 13), (61, 17, 7), (100, 99, 5), (7, 1, 1), (40, 21, 12), (1000, 999, 2)])
    func streamingRowsGivesExactlyTheBytesOfTheWholeImagePass(sourceHeight: Int, targetHeight: Int, targetWidth: Int) {
        for channels in [1, 3, 4] {
            let seed = UInt64(sourceHeight * 1000 + targetHeight * 10 + channels)
            var generator = SplitMix64(seed: seed)
            let pixels = (0..<(13 * sourceHeight * channels)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let image = PixelBuffer(width: 13, height: sourceHeight, channels: channels, pixels: pixels)
            let streaming = StreamingResampler(
                width: 13, channels: channels, sourceHeight: sourceHeight, targetWidth: targetWidth, targetHeight: targetHeight)
            image.pixels.withUnsafeBufferPointer { buffer in
                for y in 0..<sourceHeight { streaming.add(row: buffer.baseAddress! + y * 13 * channels, y: y) }
            }
            // At the same size the whole-image pass returns the image itself.
            #expect(streaming.result == Resampler.resize(image, width: targetWidth, height: targetHeight), "seed \(seed)")
        }
    }
}
