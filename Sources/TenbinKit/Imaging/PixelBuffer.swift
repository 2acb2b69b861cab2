/// Decoded 8-bit pixels, rows packed: gray (1 channel), RGB (3) or RGBA (4).
public struct PixelBuffer: Sendable, Hashable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// 1 (gray), 3 (RGB) or 4 (RGBA).
    public let channels: Int
    /// `width * height * channels` bytes, row by row.
    public var pixels: [UInt8]

    /// Wraps pixels; `pixels.count` must be `width * height * channels`.
    public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        // Invariant every pixel loop relies on for its unchecked indexing.
        precondition(pixels.count == width * height * channels, "pixel count does not match the size")
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    /// Memory the pixels take, in bytes.
    public var byteCount: Int { pixels.count }

    /// Whether any pixel is less than fully opaque (always false without an alpha channel).
    public var hasTransparency: Bool {
        guard channels == 4 else { return false }
        return pixels.withUnsafeBufferPointer { buffer in
            var index = 3
            while index < buffer.count {
                if buffer[index] != 255 { return true }
                index += 4
            }
            return false
        }
    }

    /// Gray pixels as RGB, each gray value copied to all three channels.
    func expandingGray() -> PixelBuffer {
        precondition(channels == 1, "only gray pixels are expanded")
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for (index, value) in pixels.enumerated() {
            rgb[index * 3] = value
            rgb[index * 3 + 1] = value
            rgb[index * 3 + 2] = value
        }
        return PixelBuffer(width: width, height: height, channels: 3, pixels: rgb)
    }

    /// The pixels without `left` columns on the left and `top` rows at the top (a cropped
    /// copy, for tests and benchmarks of the blocklist).
    package func cropped(left: Int, top: Int) -> PixelBuffer {
        var kept: [UInt8] = []
        kept.reserveCapacity((width - left) * (height - top) * channels)
        for y in top..<height {
            let start = (y * width + left) * channels
            kept += pixels[start..<(start + (width - left) * channels)]
        }
        return PixelBuffer(width: width - left, height: height - top, channels: channels, pixels: kept)
    }

    /// The same pixels without their alpha channel (for fully opaque RGBA images).
    func droppingAlpha() -> PixelBuffer {
        guard channels == 4 else { return self }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        pixels.withUnsafeBufferPointer { source in
            rgb.withUnsafeMutableBufferPointer { target in
                for pixel in 0..<(width * height) {
                    target[pixel * 3] = source[pixel * 4]
                    target[pixel * 3 + 1] = source[pixel * 4 + 1]
                    target[pixel * 3 + 2] = source[pixel * 4 + 2]
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: 3, pixels: rgb)
    }
}
