import Testing

@testable import TenbinKit

@Suite struct ImageSnifferTests {
    @Test func formatsAreRecognisedByTheirFirstBytes() {
        #expect(ImageSniffer.kind(of: [0xFF, 0xD8, 0xFF, 0xE0]) == .supported(.jpeg))
        #expect(ImageSniffer.kind(of: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .supported(.png))
        #expect(ImageSniffer.kind(of: Array("GIF89a....".utf8)) == .unsupported("a GIF image"))
        #expect(ImageSniffer.kind(of: Array("RIFF\0\0\0\0WEBPVP8 ".utf8)) == .supported(.webp))
        #expect(ImageSniffer.kind(of: [0, 0, 0, 0x18] + Array("ftypheic".utf8)) == .supported(.heic))
        #expect(ImageSniffer.kind(of: [0, 0, 0, 0x18] + Array("ftypavif".utf8)) == .supported(.avif))
        #expect(ImageSniffer.kind(of: Array("%PDF-1.7".utf8)) == .unsupported("a PDF document"))
    }

    @Test func heifBrandsAreReadFromTheWholeFtypBox() {
        func ftyp(_ brands: [String]) -> [UInt8] {
            let body = Array(brands[0].utf8) + [0, 0, 0, 0] + brands.dropFirst().flatMap { Array($0.utf8) }
            return [0, 0, 0, UInt8(8 + body.count)] + Array("ftyp".utf8) + body
        }
        // A generic HEIF major brand with AV1 among the compatible brands is AVIF.
        #expect(ImageSniffer.kind(of: ftyp(["mif1", "miaf", "avif"])) == .supported(.avif))
        #expect(ImageSniffer.kind(of: ftyp(["mif1", "heic"])) == .supported(.heic))
        // The minor version is not a brand, and a video is still refused.
        #expect(ImageSniffer.kind(of: ftyp(["isom", "mp41"])) == .unsupported("an MP4/QuickTime file"))
    }

    @Test func emptyTextAndUnknownBytesAreTold() {
        #expect(ImageSniffer.kind(of: []) == .empty)
        #expect(ImageSniffer.kind(of: Array("猫の写真です\n".utf8)) == .text)
        #expect(ImageSniffer.kind(of: [0x00, 0x01, 0x02, 0xFE]) == .unknown)
    }

    @Test func aJPEGPrefixAloneIsNotEnough() {
        #expect(ImageSniffer.kind(of: [0xFF, 0xD8]) != .supported(.jpeg))
    }
}
