/// One image a front end wants: a stored blob, at full size or fitted into a box.
public struct ImageRequest: Sendable, Hashable, CustomStringConvertible {
    /// The blob holding the image's stored bytes.
    public let digest: Digest
    /// The size to decode it at.
    public let size: ImageSize

    /// A request for the blob `digest` at `size`.
    public init(_ digest: Digest, size: ImageSize = .full) {
        self.digest = digest
        self.size = size
    }

    public var description: String {
        "image \(digest.hex.prefix(12))… (\(size))"
    }
}

/// The size an image is wanted at.
public enum ImageSize: Sendable, Hashable, CustomStringConvertible {
    /// As stored.
    case full
    /// Scaled down to fit inside `width`×`height` pixels, keeping its aspect ratio; an image
    /// that already fits is not enlarged.
    case thumbnail(width: Int, height: Int)

    /// The size an upright `width`×`height` image comes out at.
    public func fitting(width: Int, height: Int) -> (width: Int, height: Int) {
        switch self {
        case .full:
            return (width, height)
        case .thumbnail(let boxWidth, let boxHeight):
            let boxWidth = max(1, boxWidth)
            let boxHeight = max(1, boxHeight)
            guard width > boxWidth || height > boxHeight else { return (width, height) }
            let scale = min(Double(boxWidth) / Double(width), Double(boxHeight) / Double(height))
            let fittedWidth = min(boxWidth, max(1, Int((Double(width) * scale).rounded())))
            let fittedHeight = min(boxHeight, max(1, Int((Double(height) * scale).rounded())))
            return (fittedWidth, fittedHeight)
        }
    }

    public var description: String {
        switch self {
        case .full: "full size"
        case .thumbnail(let width, let height): "fitting \(width)×\(height)"
        }
    }
}
