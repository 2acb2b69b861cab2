/// Recognises an upload's format from its first bytes, never from its name.
enum ImageSniffer {
    /// What the first bytes say a file is.
    enum Kind: Equatable {
        case supported(UploadFormat)
        /// A known format tenbin does not accept, by name ("GIF", "WebP", …).
        case unsupported(String)
        case empty
        case text
        case unknown
    }

    static func kind(of bytes: [UInt8]) -> Kind {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }

        if bytes.isEmpty { return .empty }
        if starts([0xFF, 0xD8, 0xFF]) { return .supported(.jpeg) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .supported(.png) }
        if ascii("GIF87a") || ascii("GIF89a") { return .unsupported("a GIF image") }
        if ascii("RIFF") && ascii("WEBP", at: 8) { return .supported(.webp) }
        if ascii("ftyp", at: 4) { return heifKind(bytes) }
        if ascii("BM") && bytes.count > 14 { return .unsupported("a BMP image") }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .unsupported("a TIFF image") }
        if starts([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50]) || starts([0xFF, 0x4F, 0xFF, 0x51]) { return .unsupported("a JPEG 2000 image") }
        if ascii("%PDF") { return .unsupported("a PDF document") }
        if ascii("<svg") || ascii("<?xml") { return .unsupported("an SVG/XML document") }
        if ascii("8BPS") { return .unsupported("a Photoshop document") }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return .unsupported("a ZIP archive") }
        if looksLikeText(bytes.prefix(512)) { return .text }
        return .unknown
    }

    /// An ISO media file by its `ftyp` box: the major brand and the compatible brands say
    /// whether it is AVIF, HEIC (or another HEIF still image), or a video.
    private static func heifKind(_ bytes: [UInt8]) -> Kind {
        let boxSize = bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        let end = min(max(boxSize, 12), bytes.count, 4096)
        var brands: [String] = []
        var offset = 8
        while offset + 4 <= end {
            // Bytes 12–15 are the minor version, not a brand.
            if offset != 12 { brands.append(String(decoding: bytes[offset..<offset + 4], as: UTF8.self)) }
            offset += 4
        }
        if brands.contains(where: { $0 == "avif" || $0 == "avis" }) { return .supported(.avif) }
        let heif: Set = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]
        if brands.contains(where: heif.contains) { return .supported(.heic) }
        return .unsupported("an MP4/QuickTime file")
    }

    private static func looksLikeText(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.allSatisfy { $0 == 9 || $0 == 10 || $0 == 13 || $0 >= 32 } && String(validating: bytes, as: UTF8.self) != nil
    }

    /// The phrase explaining why a file of this kind is refused.
    static func refusal(for kind: Kind) -> String? {
        switch kind {
        case .supported: nil
        case .unsupported(let name): "is \(name), not a JPEG, PNG, WebP, HEIC or AVIF image"
        case .empty: "is empty, not a JPEG, PNG, WebP, HEIC or AVIF image"
        case .text: "is text, not a JPEG, PNG, WebP, HEIC or AVIF image"
        case .unknown: "is not a JPEG, PNG, WebP, HEIC or AVIF image (unrecognised content)"
        }
    }
}
