/// The EXIF Orientation tag (0x0112): how a camera's stored pixels must be turned to stand
/// upright. Values 1–8 as in the TIFF specification.
package enum ExifOrientation: Int, Sendable, CaseIterable {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    /// Stored rotated: turn 90° clockwise to view (most phone portraits).
    case right = 6
    case rightMirrored = 7
    case left = 8

    /// Whether width and height swap when the orientation is applied.
    var swapsSides: Bool { rawValue >= 5 }

    /// Reads the orientation from an EXIF payload (the TIFF structure after "Exif\0\0").
    /// Anything malformed or missing means `.up`: a broken tag must not refuse a photo.
    static func parse(exif bytes: [UInt8]) -> ExifOrientation {
        guard bytes.count >= 8 else { return .up }
        let little: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return .up
        }
        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= bytes.count else { return nil }
            let a = Int(bytes[offset]), b = Int(bytes[offset + 1])
            return little ? a | b << 8 : a << 8 | b
        }
        func u32(_ offset: Int) -> Int? {
            guard let high = u16(little ? offset + 2 : offset), let low = u16(little ? offset : offset + 2) else { return nil }
            return high << 16 | low
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return .up }
        for entry in 0..<count {
            let offset = ifd + 2 + entry * 12
            guard let tag = u16(offset) else { return .up }
            // Orientation is a SHORT (type 3) with one value, stored in the entry itself.
            if tag == 0x0112, u16(offset + 2) == 3, let value = u16(offset + 8) {
                return ExifOrientation(rawValue: value) ?? .up
            }
        }
        return .up
    }
}

extension PixelBuffer {
    /// The pixels turned and mirrored so that a viewer ignoring EXIF sees them upright.
    func applying(_ orientation: ExifOrientation) -> PixelBuffer {
        guard orientation != .up else { return self }
        let (w, h, c) = (width, height, channels)
        let outWidth = orientation.swapsSides ? h : w
        let outHeight = orientation.swapsSides ? w : h
        var output = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                for y in 0..<h {
                    for x in 0..<w {
                        // Where the stored pixel (x, y) lands in the upright image.
                        let (tx, ty): (Int, Int)
                        switch orientation {
                        case .up: (tx, ty) = (x, y)
                        case .upMirrored: (tx, ty) = (w - 1 - x, y)
                        case .down: (tx, ty) = (w - 1 - x, h - 1 - y)
                        case .downMirrored: (tx, ty) = (x, h - 1 - y)
                        case .leftMirrored: (tx, ty) = (y, x)
                        case .right: (tx, ty) = (h - 1 - y, x)
                        case .rightMirrored: (tx, ty) = (h - 1 - y, w - 1 - x)
                        case .left: (tx, ty) = (y, w - 1 - x)
                        }
                        let from = (y * w + x) * c
                        let to = (ty * outWidth + tx) * c
                        for channel in 0..<c { target[to + channel] = source[from + channel] }
                    }
                }
            }
        }
        return PixelBuffer(width: outWidth, height: outHeight, channels: c, pixels: output)
    }
}
