import Testing

@testable import TenbinKit

/// The eight EXIF orientations in both formats (Tests/Fixtures/orientation, made by
/// scripts/make-orientation-fixtures.py): each stores the same 32×16 picture turned another
/// way, and each must come out upright — red, green / blue, white.
@Suite struct OrientationFixtureTests {
    let codec = ImageCodec()

    static let cases = (1...8).flatMap { orientation in ["jpg", "png"].map { (orientation, $0) } }

    @Test(arguments: cases)
    func everyOrientationComesOutUpright(orientation: Int, format: String) throws {
        let path = "\(Fixtures.root)/Tests/Fixtures/orientation/orientation-\(orientation).\(format)"
        let bytes = try Fixtures.bytes(path)
        let header = try codec.probe(bytes, source: path)
        #expect(header.orientation.rawValue == orientation)
        #expect((header.width, header.height) == (orientation >= 5 ? (16, 32) : (32, 16)))

        let stored = try codec.reencode(bytes, source: path)
        #expect(stored.format == .jpeg)
        #expect((stored.width, stored.height) == (32, 16))
        let pixels = try codec.decode(stored.bytes, source: "stored", maxEdge: nil)
        #expect(try codec.probe(stored.bytes, source: "stored").orientation == .up)
        // The centre of each quadrant, away from the edges JPEG blurs.
        let expected: [(x: Int, y: Int, rgb: [Int])] = [
            (8, 4, [255, 0, 0]), (24, 4, [0, 255, 0]), (8, 12, [0, 0, 255]), (24, 12, [255, 255, 255]),
        ]
        for point in expected {
            let offset = (point.y * pixels.width + point.x) * pixels.channels
            let rgb = (0..<3).map { Int(pixels.pixels[offset + $0]) }
            #expect(zip(rgb, point.rgb).allSatisfy { abs($0 - $1) <= 40 }, "\(format) \(orientation) at \(point.x),\(point.y): \(rgb)")
        }
    }

    @Test func aPNGsExifOrientationTurnsItLikeAJPEGs() throws {
        let base = "\(Fixtures.root)/Tests/Fixtures/orientation"
        for orientation in 1...8 {
            let png = try codec.decode(try Fixtures.bytes("\(base)/orientation-\(orientation).png"), source: "png", maxEdge: nil)
            let jpeg = try codec.decode(try Fixtures.bytes("\(base)/orientation-\(orientation).jpg"), source: "jpg", maxEdge: nil)
            #expect((png.width, png.height) == (jpeg.width, jpeg.height))
        }
    }

    @Test func anExifChunkClaimingMoreThanTheFileIsRefusedBeforeLibpngAllocatesIt() throws {
        // Found by `make fuzz`: 130 bytes whose eXIf chunk claims 1.6 GB, which libpng
        // allocated whole before reading it.
        let path = "\(Fixtures.root)/Tests/Fixtures/fuzz/image/huge-exif-chunk.png"
        let error = try #require(throws: ImageError.self) { try codec.probe(try Fixtures.bytes(path), source: path) }
        #expect(error.stage == .header)
        #expect(error.reason == "the file is truncated (its eXIf chunk claims 1635150195 bytes, past the end)")
    }

    @Test func aFileEndingRightAfterAHugeChunksHeaderIsRefusedBeforeLibpngAllocatesIt() throws {
        // Found by `make fuzz` in CI: 43 bytes ending 2 bytes into an eXIf chunk that claims
        // 1.6 GB. The walk over chunk lengths stopped where fewer than 12 bytes were left, so
        // libpng read the header and allocated 1.6 GB (its own 8 MB limit only warns).
        let path = "\(Fixtures.root)/Tests/Fixtures/fuzz/image/huge-exif-chunk-header-at-the-end.png"
        for source in ["probe", "decode"] {
            let bytes = try Fixtures.bytes(path)
            let error = try #require(throws: ImageError.self) {
                if source == "probe" {
                    _ = try codec.probe(bytes, source: path)
                } else {
                    _ = try codec.decode(bytes, source: path, maxEdge: nil)
                }
            }
            #expect(error.reason == "the file is truncated (its eXIf chunk claims 1634803059 bytes, past the end)")
        }
    }
}
