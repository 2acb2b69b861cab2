import Testing

@testable import TenbinKit

@Suite struct ExifOrientationTests {
    /// A TIFF structure with one IFD entry: Orientation = `value`.
    func exif(_ value: UInt8, littleEndian: Bool) -> [UInt8] {
        if littleEndian {
            return [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, value, 0, 0, 0, 0, 0, 0, 0]
        }
        return [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, value, 0, 0, 0, 0, 0, 0]
    }

    @Test func orientationIsReadInBothByteOrders() {
        #expect(ExifOrientation.parse(exif: exif(6, littleEndian: true)) == .right)
        #expect(ExifOrientation.parse(exif: exif(8, littleEndian: false)) == .left)
    }

    @Test func malformedExifMeansUpright() {
        #expect(ExifOrientation.parse(exif: []) == .up)
        #expect(ExifOrientation.parse(exif: Array(exif(6, littleEndian: true).prefix(12))) == .up)
        #expect(ExifOrientation.parse(exif: exif(9, littleEndian: true)) == .up)
        #expect(ExifOrientation.parse(exif: [0x49, 0x49, 42, 0, 0xFF, 0xFF, 0xFF, 0x7F]) == .up)
    }

    /// Stored pixels 1 2 3 / 4 5 6 (3×2, one channel).
    let stored = PixelBuffer(width: 3, height: 2, channels: 1, pixels: [1, 2, 3, 4, 5, 6])

    @Test(arguments: [
        (ExifOrientation.up, 3, [1, 2, 3, 4, 5, 6]),
        (.upMirrored, 3, [3, 2, 1, 6, 5, 4]),
        (.down, 3, [6, 5, 4, 3, 2, 1]),
        (.downMirrored, 3, [4, 5, 6, 1, 2, 3]),
        (.leftMirrored, 2, [1, 4, 2, 5, 3, 6]),
        (.right, 2, [4, 1, 5, 2, 6, 3]),
        (.rightMirrored, 2, [6, 3, 5, 2, 4, 1]),
        (.left, 2, [3, 6, 2, 5, 1, 4]),
    ])
    func eachOrientationMapsPixelsAsTheTIFFSpecificationSays(orientation: ExifOrientation, width: Int, expected: [UInt8]) {
        let upright = stored.applying(orientation)
        #expect(upright.width == width)
        #expect(upright.pixels == expected)
    }
}
