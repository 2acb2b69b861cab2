import Testing

@testable import TenbinKit

/// WebP (libwebp), HEIC and AVIF (libheif): real files made by Debian's cwebp and heif-enc
/// (Tests/Fixtures/formats) and their hostile variants (Fuzz/Seeds/image), both made by
/// scripts/make-format-fixtures.py.
@Suite struct PhoneFormatTests {
    let codec = ImageCodec()

    static func fixture(_ name: String) -> String { "\(Fixtures.root)/Tests/Fixtures/formats/\(name)" }
    static func seed(_ name: String) -> String { "\(Fixtures.root)/Fuzz/Seeds/image/\(name)" }

    /// The mean of each channel.
    func average(_ pixels: PixelBuffer) -> [Int] {
        var sums = [Int](repeating: 0, count: pixels.channels)
        for (index, value) in pixels.pixels.enumerated() { sums[index % pixels.channels] += Int(value) }
        return sums.map { $0 / (pixels.width * pixels.height) }
    }

    @Test(arguments: [("photo.webp", UploadFormat.webp), ("photo.heic", .heic), ("photo.avif", .avif)])
    func anOpaquePhotoIsStoredAsJPEG(name: String, format: UploadFormat) throws {
        let bytes = try Fixtures.bytes(Self.fixture(name))
        let header = try codec.probe(bytes, source: name)
        #expect(header.format == format)
        #expect((header.width, header.height) == (96, 64))
        let stored = try codec.reencode(bytes, source: name)
        #expect(stored.format == .jpeg)
        #expect((stored.width, stored.height) == (96, 64))
        #expect(try codec.reencode(bytes, source: name) == stored, "the same input gives the same bytes")
        // The colours are the photo's: compare with the JPEG it was made from, resized alike.
        let original = try codec.decode(
            try Fixtures.bytes(Fixtures.sample("01-cats-or-dogs/1-cat.jpg")), source: "cat", maxEdge: nil)
        let expected = average(Resampler.resize(original, width: 96, height: 64))
        let actual = average(try codec.decode(stored.bytes, source: "stored", maxEdge: nil))
        #expect(zip(actual, expected).allSatisfy { abs($0 - $1) <= 12 }, "\(actual) against \(expected)")
    }

    @Test(arguments: ["logo-alpha.webp", "logo-alpha.avif"])
    func realTransparencyIsStoredAsPNG(name: String) throws {
        let stored = try codec.reencode(try Fixtures.bytes(Self.fixture(name)), source: name)
        #expect(stored.format == .png)
        #expect((stored.width, stored.height) == (96, 96))
        #expect(try codec.decode(stored.bytes, source: "stored", maxEdge: nil).hasTransparency)
    }

    @Test func aLargerWebPIsScaledToTheMaximumEdge() throws {
        let small = ImageCodec(encoding: EncodingOptions(maxEdge: 48, jpegQuality: 50))
        let stored = try small.reencode(try Fixtures.bytes(Self.fixture("photo.webp")), source: "photo.webp")
        #expect((stored.width, stored.height) == (48, 32))
        let heic = try small.reencode(try Fixtures.bytes(Self.fixture("photo.heic")), source: "photo.heic")
        #expect((heic.width, heic.height) == (48, 32))
    }

    @Test(arguments: [
        ("truncated.webp", ImageError.Stage.decode, "the file is truncated"),
        ("header-only.webp", .decode, "the file is truncated"),
        ("truncated.heic", .header, "Unexpected end of file"),
        ("truncated.avif", .header, "Unexpected end of file"),
        ("ftyp-only.heic", .header, "No 'meta' box"),
        ("huge-16383x16383.webp", .limits, "16383×16383 pixels (268.4 MP) is over the limit of 50.0 megapixels"),
        ("huge-30000x30000.heic", .limits, "30000×30000 pixels is over the limit of 20000 pixels a side"),
        ("huge-30000x30000.avif", .limits, "30000×30000 pixels is over the limit of 20000 pixels a side"),
    ])
    func aHostileFileIsRefusedAtTheRightStage(name: String, stage: ImageError.Stage, reason: String) throws {
        let path = Self.seed(name)
        let error = try #require(throws: ImageError.self) { try codec.reencode(try Fixtures.bytes(path), source: path) }
        #expect(error.stage == stage, "\(error)")
        #expect(error.reason.contains(reason), "\(error)")
        #expect(!error.description.contains("\n"))
    }

    @Test func anAnimatedWebPIsRefusedFromItsHeader() throws {
        let path = Self.fixture("animated.webp")
        let error = try #require(throws: ImageError.self) { try codec.probe(try Fixtures.bytes(path), source: path) }
        #expect(error.stage == .limits)
        #expect(error.description == "\(path): is an animated WebP; tenbin stores still images")
        #expect(error.kind == .invalidInput, "not over a limit: a kind of image tenbin does not store")
    }

    @Test func oversizedDimensionsAreRefusedFromTheHeaderAlone() throws {
        // The header is all the limit check needs: the pixels are never decoded.
        for name in ["huge-30000x30000.heic", "huge-30000x30000.avif", "huge-16383x16383.webp"] {
            let error = try #require(throws: ImageError.self) { try codec.probe(try Fixtures.bytes(Self.seed(name)), source: name) }
            #expect(error.stage == .limits)
        }
    }
}
