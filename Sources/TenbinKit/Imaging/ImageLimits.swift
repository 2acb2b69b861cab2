/// What an upload may be, checked from its header before any pixel is decoded.
public struct ImageLimits: Sendable, Hashable {
    /// The largest file accepted, in bytes (default 50 MiB).
    public var maxFileBytes: Int
    /// The most pixels accepted (default 50 megapixels).
    public var maxPixels: Int
    /// The longest side accepted, in pixels (default 20000).
    public var maxSide: Int

    /// Creates limits; the defaults are tenbin's documented ones.
    public init(maxFileBytes: Int = 50 << 20, maxPixels: Int = 50_000_000, maxSide: Int = 20_000) {
        self.maxFileBytes = maxFileBytes
        self.maxPixels = maxPixels
        self.maxSide = maxSide
    }

    /// The reason a `width`×`height` image is refused, or nil when it is within limits.
    func violation(width: Int, height: Int) -> String? {
        if width <= 0 || height <= 0 { return "the header gives an empty size \(width)×\(height)" }
        if max(width, height) > maxSide {
            return "\(width)×\(height) pixels is over the limit of \(maxSide) pixels a side"
        }
        if width * height > maxPixels {
            let megapixels = Double(width * height) / 1_000_000
            return
                "\(width)×\(height) pixels (\(Self.oneDecimal(megapixels)) MP) is over the limit of \(Self.oneDecimal(Double(maxPixels) / 1_000_000)) megapixels"
        }
        return nil
    }

    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// How accepted images are stored.
public struct EncodingOptions: Sendable, Hashable {
    /// Images with a longer side are scaled down to it (default 2048).
    public var maxEdge: Int
    /// JPEG quality for opaque images, 1–100 (default 50, as the original app used).
    public var jpegQuality: Int

    /// Creates options; the defaults are tenbin's documented ones.
    public init(maxEdge: Int = 2048, jpegQuality: Int = 50) {
        self.maxEdge = maxEdge
        self.jpegQuality = jpegQuality
    }

    /// A short stable text naming these options, so a stored upload→blob mapping made with
    /// other options is not reused.
    var key: String { "edge=\(maxEdge);q=\(jpegQuality)" }
}
