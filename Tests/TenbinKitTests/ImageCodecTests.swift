import Foundation
import Testing

@testable import TenbinKit

@Suite struct ImageCodecTests {
    let codec = ImageCodec()

    static func colors(_ name: String) -> String { "\(Fixtures.root)/Tests/Fixtures/colors/\(name)" }

    /// Decodes a stored image back to pixels and returns its average colour per channel.
    func averageColor(_ encoded: EncodedImage) throws -> [Int] {
        let pixels = try codec.decode(encoded.bytes, source: "stored", maxEdge: nil)
        var sums = [Int](repeating: 0, count: pixels.channels)
        for (index, value) in pixels.pixels.enumerated() { sums[index % pixels.channels] += Int(value) }
        return sums.map { $0 / (pixels.width * pixels.height) }
    }

    func reencode(_ path: String) throws -> EncodedImage {
        try codec.reencode(try Fixtures.bytes(path), source: path)
    }

    func expectClose(_ actual: [Int], _ expected: [Int], tolerance: Int = 6, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(actual.count == expected.count, sourceLocation: sourceLocation)
        for (a, e) in zip(actual, expected) {
            #expect(abs(a - e) <= tolerance, "got \(actual), expected \(expected)", sourceLocation: sourceLocation)
        }
    }

    @Test func everySampleImageReencodesWithinTheMaximumEdge() throws {
        for (_, images) in Fixtures.sampleFolders {
            for path in images {
                let encoded = try reencode(path)
                #expect(max(encoded.width, encoded.height) <= 2048)
                #expect(!encoded.bytes.isEmpty)
            }
        }
    }

    @Test func uprightJPEGsEncodedWhileTheyDecodeGiveTheBytesAndHashOfTheirDecodedPixels() throws {
        let jpegs =
            Fixtures.sampleFolders.flatMap(\.images).filter { $0.hasSuffix(".jpg") }
            + ["cmyk-red.jpg", "gray-128.jpg", "progressive-azure.jpg"].map(Self.colors)
        var streamed = 0
        for path in jpegs {
            let bytes = try Fixtures.bytes(path)
            guard try codec.probe(bytes, source: path).orientation == .up else { continue }
            streamed += 1
            let pixels = try codec.decode(bytes, source: path, maxEdge: codec.encoding.maxEdge)
            // Shrunk and encoded on the decoding thread, and on a thread of their own fed bands
            // of decoded rows.
            for use in [ImageCodec.ShrinkThreadUse.never, .always] {
                var codec = codec
                codec.shrinkThread = use
                let (encoded, hash) = try codec.reencode(bytes, source: path, hashing: true)
                #expect(encoded == (try codec.encode(pixels, source: path)), "\(path), shrink thread \(use)")
                #expect(hash == PerceptualHash(of: pixels), "\(path), shrink thread \(use)")
            }
        }
        #expect(streamed >= 5)
    }

    @Test func everySampleImageDecodesToTheSamePixelsWithItsRowsShrunkOnAThreadOfTheirOwn() throws {
        var inline = codec
        inline.shrinkThread = .never
        var beside = codec
        beside.shrinkThread = .always
        var decoded = 0
        for path in Fixtures.sampleFolders.flatMap(\.images) {
            let bytes = try Fixtures.bytes(path)
            for maxEdge in [nil, 300] {
                let expected = try inline.decode(bytes, source: path, maxEdge: maxEdge)
                #expect(try beside.decode(bytes, source: path, maxEdge: maxEdge) == expected, "\(path) at \(maxEdge ?? 0)")
                decoded += 1
            }
        }
        #expect(decoded >= 10)
    }

    @Test func aJPEGThatEndsHalfWayFailsAsADecodeWithItsRowsShrunkOnAThreadOfTheirOwn() throws {
        var codec = codec
        codec.shrinkThread = .always
        let path = Fixtures.hostile("truncated.jpg")
        let bytes = try Fixtures.bytes(path)
        #expect(try codec.probe(bytes, source: path).orientation == .up)
        // The thread is given the rows decoded before the end, then ended: the decode's reason
        // is reported, not the encoder's missing rows.
        let error = try #require(throws: ImageError.self) { try codec.reencode(bytes, source: path, hashing: true) }
        #expect(error.stage == .decode, "\(error)")
        #expect(error.reason.contains("truncated"), "\(error)")
    }

    @Test func cmykJPEGComesOutInTheRightColours() throws {
        expectClose(try averageColor(try reencode(Self.colors("cmyk-red.jpg"))), [255, 0, 0], tolerance: 12)
        expectClose(try averageColor(try reencode(Self.colors("cmyk-blue.jpg"))), [0, 0, 255], tolerance: 12)
    }

    @Test func grayscaleJPEGStaysGray() throws {
        let encoded = try reencode(Self.colors("gray-128.jpg"))
        #expect(encoded.format == .jpeg)
        expectClose(try averageColor(encoded), [128])
    }

    @Test func progressiveJPEGDecodes() throws {
        expectClose(try averageColor(try reencode(Self.colors("progressive-azure.jpg"))), [0, 128, 255])
    }

    @Test func sixteenBitAndInterlacedPNGsDecodeToTheirColour() throws {
        expectClose(try averageColor(try reencode(Self.colors("sixteen-bit-azure.png"))), [0, 128, 255])
        expectClose(try averageColor(try reencode(Self.colors("interlaced-azure.png"))), [0, 128, 255])
        // A gray palette comes out as RGB, all three channels equal.
        expectClose(try averageColor(try reencode(Self.colors("gray-200.png"))), [200, 200, 200])
    }

    @Test func realTransparencyIsStoredAsPNGAndOpaqueAlphaAsJPEG() throws {
        let half = try reencode(Self.colors("rgba-half-red.png"))
        #expect(half.format == .png)
        expectClose(try averageColor(half), [255, 0, 0, 128], tolerance: 1)
        let palette = try reencode(Self.colors("palette-trns-green.png"))
        #expect(palette.format == .png)
        #expect(try codec.decode(palette.bytes, source: "p", maxEdge: nil).channels == 4)
        let opaque = try reencode(Self.colors("rgba-opaque-white.png"))
        #expect(opaque.format == .jpeg)
        expectClose(try averageColor(opaque), [255, 255, 255], tolerance: 2)
    }

    @Test func exifOrientationSixTurnsTheImageUpright() throws {
        let path = Fixtures.sample("03-phone-portrait/a-rotated.jpg")
        let header = try codec.probe(try Fixtures.bytes(path), source: path)
        #expect(header.orientation == .right)
        #expect(header.width > header.height)
        let encoded = try reencode(path)
        #expect(encoded.width < encoded.height)
        #expect(max(encoded.width, encoded.height) == 2048)
    }

    @Test func noMetadataSurvives() throws {
        let path = Fixtures.sample("03-phone-portrait/a-rotated.jpg")
        let original = try Fixtures.bytes(path)
        #expect(original.containsSubsequence(Array("Exif".utf8)))
        let encoded = try reencode(path)
        #expect(!encoded.bytes.containsSubsequence(Array("Exif".utf8)))
        #expect(!encoded.bytes.containsSubsequence(Array("GPS".utf8)))
        #expect(!encoded.bytes.containsSubsequence(Array("Example".utf8)))
        #expect(try codec.probe(encoded.bytes, source: "out").orientation == .up)
    }

    @Test func reencodingIsDeterministic() throws {
        for path in [Fixtures.sample("01-cats-or-dogs/1-cat.jpg"), Fixtures.sample("04-logos/logo-rgba.png")] {
            #expect(try reencode(path).bytes == reencode(path).bytes)
        }
    }

    @Test func qualityAndMaximumEdgeAreOptions() throws {
        let path = Fixtures.sample("09-sea-or-mountain/sea.jpg")
        let small = try ImageCodec(encoding: EncodingOptions(maxEdge: 100, jpegQuality: 90)).reencode(
            try Fixtures.bytes(path), source: path)
        #expect(small.width == 100 && small.height == 60)
        let low = try ImageCodec(encoding: EncodingOptions(maxEdge: 2048, jpegQuality: 10)).reencode(try Fixtures.bytes(path), source: path)
        #expect(low.bytes.count < (try reencode(path)).bytes.count)
    }

    @Test func shrinkOnLoadPicksTheLargestScaleThatStillCoversTheTarget() {
        #expect(ImageCodec.jpegScale(width: 4096, height: 3072, atLeast: (2048, 1536)) == 4)
        #expect(ImageCodec.jpegScale(width: 8192, height: 6144, atLeast: (2048, 1536)) == 2)
        #expect(ImageCodec.jpegScale(width: 16384, height: 12288, atLeast: (2048, 1536)) == 1)
        #expect(ImageCodec.jpegScale(width: 5472, height: 3648, atLeast: (2048, 1365)) == 4)
        // Half of 4000 is under 2048, so it must decode at full size and resample.
        #expect(ImageCodec.jpegScale(width: 4000, height: 3000, atLeast: (2048, 1536)) == 8)
    }

    @Test func limitsAreCheckedFromTheHeaderBeforeDecoding() throws {
        let tight = ImageCodec(limits: ImageLimits(maxFileBytes: 1 << 20, maxPixels: 100_000, maxSide: 500))
        let path = Fixtures.sample("01-cats-or-dogs/1-cat.jpg")
        let error = try #require(throws: ImageError.self) { try tight.reencode(try Fixtures.bytes(path), source: path) }
        #expect(error.stage == .limits)
        #expect(error.description.contains("900×600"))
        let big = ImageCodec(limits: ImageLimits(maxFileBytes: 1000))
        let sizeError = try #require(throws: ImageError.self) { try big.reencode(try Fixtures.bytes(path), source: path) }
        #expect(sizeError.stage == .limits)
        #expect(sizeError.description.contains("larger than the limit"))
    }
}

@Suite struct HostileImageTests {
    let codec = ImageCodec()

    func refusal(_ name: String) throws -> ImageError {
        let path = Fixtures.hostile(name)
        return try #require(throws: ImageError.self) { try codec.reencode(try Fixtures.bytes(path), source: path) }
    }

    @Test func anEmptyFileIsRefusedAtTheSniffer() throws {
        let error = try refusal("empty.jpg")
        #expect(error.stage == .sniff)
        #expect(error.description == "\(Fixtures.hostile("empty.jpg")): is empty, not a JPEG, PNG, WebP, HEIC or AVIF image")
    }

    @Test func textNamedJPEGIsRefusedAsText() throws {
        #expect(try refusal("text-named.jpg").reason.contains("is text"))
    }

    @Test func gifIsNamedInTheRefusal() throws {
        #expect(try refusal("animation.jpg").reason.contains("GIF"))
    }

    @Test func truncatedFilesAreErrors() throws {
        for name in ["truncated.jpg", "truncated.png", "header-only.jpg"] {
            let error = try refusal(name)
            #expect(error.stage == .decode || error.stage == .header, "\(name): \(error)")
            #expect(error.reason.contains("truncated"), "\(name): \(error)")
        }
    }

    @Test func aBadCriticalChunkCRCIsAnError() throws {
        #expect(try refusal("bad-crc.png").reason.contains("CRC"))
    }

    @Test func hugeDimensionsAreRefusedFromTheHeader() throws {
        let png = try refusal("huge-30000x30000.png")
        #expect(png.stage == .limits)
        #expect(png.reason.contains("30000×30000"))
        let jpeg = try refusal("huge-65000x65000.jpg")
        #expect(jpeg.stage == .limits)
        #expect(jpeg.reason.contains("65000×65000"))
    }

    @Test func aZeroSizedPNGIsRefused() throws {
        #expect(try refusal("zero-size.png").stage == .header)
    }

    @Test func ancillaryChunkProblemsDoNotRejectAnImage() throws {
        for name in ["accept-broken-icc.png", "accept-bad-text-crc.png"] {
            let encoded = try codec.reencode(try Fixtures.bytes(Fixtures.hostile(name)), source: name)
            #expect(encoded.width == 64)
        }
    }
}

extension Array where Element == UInt8 {
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { start in self[start..<start + needle.count].elementsEqual(needle) }
    }
}
