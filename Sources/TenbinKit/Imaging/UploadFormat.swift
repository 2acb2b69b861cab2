/// The formats tenbin accepts as uploads, recognised from their first bytes. Every upload
/// is stored as JPEG, or PNG when it has real transparency (``ImageFormat``).
public enum UploadFormat: String, Sendable, CaseIterable {
    case jpeg
    case png
    case webp
    /// HEIF with HEVC pictures, as phones take them.
    case heic
    /// HEIF with AV1 pictures.
    case avif

    /// The name people know the format by.
    public var name: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .webp: "WebP"
        case .heic: "HEIC"
        case .avif: "AVIF"
        }
    }

    init(_ stored: ImageFormat) {
        switch stored {
        case .jpeg: self = .jpeg
        case .png: self = .png
        }
    }
}
