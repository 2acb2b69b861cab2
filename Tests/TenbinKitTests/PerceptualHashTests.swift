import Foundation
import Testing

@testable import TenbinKit

/// ``PerceptualHash`` on real pictures and real copies of them made with tenbin's own codecs:
/// copies are within the blocklist's distance of their picture, distinct pictures are not,
/// and a plain picture has no hash.
@Suite struct PerceptualHashTests {
    static let codec = ImageCodec()
    static let distance = ImageBlocklist.defaultDistance

    static func fixture(_ relative: String) -> String { "\(Fixtures.root)/Tests/Fixtures/\(relative)" }

    static func hash(_ path: String) throws -> PerceptualHash {
        try #require(try codec.perceptualHash(try Fixtures.bytes(path), source: path))
    }

    static func hash(_ pixels: PixelBuffer, as format: ImageFormat, quality: Int = 75) throws -> PerceptualHash {
        var codec = ImageCodec()
        codec.encoding.jpegQuality = quality
        let bytes = try codec.encode(pixels, as: format, source: "copy").bytes
        return try #require(try codec.perceptualHash(bytes, source: "copy"))
    }

    @Test func onePictureInWebPHEICAndAVIFHashesAlike() throws {
        let webp = try Self.hash(Self.fixture("formats/photo.webp"))
        for other in ["formats/photo.heic", "formats/photo.avif"] {
            #expect(webp.distance(to: try Self.hash(Self.fixture(other))) <= Self.distance, "\(other)")
        }
    }

    @Test func recompressedResizedCroppedAndPNGCopiesStayWithinTheDistance() throws {
        for path in [StoreContractTests.cat, StoreContractTests.dog, Fixtures.sample("07-tokyo/tower.JPG")]
        where FileManager.default.fileExists(atPath: path) {
            let pixels = try Self.codec.decode(try Fixtures.bytes(path), source: path, maxEdge: 2048)
            let original = try #require(PerceptualHash(of: pixels))
            for quality in [90, 50, 30] {
                #expect(original.distance(to: try Self.hash(pixels, as: .jpeg, quality: quality)) <= Self.distance, "\(path) q\(quality)")
            }
            #expect(original.distance(to: try Self.hash(pixels, as: .png)) <= Self.distance, "\(path) PNG")
            for percent in [50, 70, 90] {
                let smaller = Resampler.resize(pixels, width: pixels.width * percent / 100, height: pixels.height * percent / 100)
                #expect(original.distance(to: try Self.hash(smaller, as: .jpeg)) <= Self.distance, "\(path) at \(percent) %")
            }
            let cropped = Self.crop(pixels, percent: 2)
            #expect(original.distance(to: try Self.hash(cropped, as: .jpeg)) <= Self.distance, "\(path) cropped 2 %")
        }
    }

    @Test func distinctPicturesAreFartherApartThanTheDistance() throws {
        // The two logos are one layout in two colours of the same brightness: see below.
        let paths = Fixtures.sampleFolders.filter { $0.folder != "04-logos" }.flatMap(\.images)
        #expect(paths.count >= 10)
        let hashes = try paths.map { try Self.hash($0) }
        for i in hashes.indices {
            for j in hashes.indices where j > i {
                #expect(hashes[i].distance(to: hashes[j]) > Self.distance, "\(paths[i]) and \(paths[j])")
            }
        }
    }

    /// The hash sees brightness, not colour: a red and a blue card of one layout, whose
    /// colours are about as bright, look alike to it (docs/moderation.md names this).
    @Test func oneLayoutInTwoColoursOfEqualBrightnessLooksAlike() throws {
        let logos = try #require(Fixtures.sampleFolders.first { $0.folder == "04-logos" }?.images)
        let hashes = try logos.map { try Self.hash($0) }
        #expect(hashes[0].distance(to: hashes[1]) <= Self.distance)
    }

    @Test func whatATransparentPixelHidesIsNotPartOfTheHash() throws {
        // The same picture twice: a transparent left half hiding red in one, blue in the other.
        func picture(hidden: (UInt8, UInt8, UInt8)) -> PixelBuffer {
            var pixels: [UInt8] = []
            for y in 0..<64 {
                for x in 0..<64 {
                    if x < 32 {
                        pixels += [hidden.0, hidden.1, hidden.2, 0]
                    } else {
                        let shade = UInt8((x * 4 + y * 2) % 256)
                        pixels += [shade, 255 - shade, UInt8(y * 4), 255]
                    }
                }
            }
            return PixelBuffer(width: 64, height: 64, channels: 4, pixels: pixels)
        }
        let red = try #require(PerceptualHash(of: picture(hidden: (255, 0, 0))))
        #expect(red == PerceptualHash(of: picture(hidden: (0, 0, 255))))
    }

    @Test func aPlainPictureHasNoHash() throws {
        for name in ["colors/gray-128.jpg", "colors/cmyk-red.jpg", "colors/gray-200.png"] {
            let path = Self.fixture(name)
            #expect(try Self.codec.perceptualHash(try Fixtures.bytes(path), source: path) == nil, "\(name)")
        }
    }

    @Test func aHashReadsBackFromItsHexAndItsStoredValue() throws {
        let hash = PerceptualHash(bits: 0x8000_0000_0000_00f1)
        #expect(hash.description == "80000000000000f1")
        #expect(PerceptualHash(hex: hash.description) == hash)
        #expect(PerceptualHash(storedValue: hash.storedValue) == hash)
        #expect(PerceptualHash(hex: "xyz") == nil)
        #expect(hash.distance(to: PerceptualHash(bits: 0x0000_0000_0000_00f0)) == 2)
    }

    /// `pixels` without `percent` of its width on the left and of its height at the top.
    static func crop(_ pixels: PixelBuffer, percent: Int) -> PixelBuffer {
        pixels.cropped(left: pixels.width * percent / 100, top: pixels.height * percent / 100)
    }
}
