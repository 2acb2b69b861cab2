import TenbinKit

/// The page's icon as a PNG for phones' home screens (`apple-touch-icon`, and the manifest's
/// raster icon): the same drawing as `Static/icon.svg` — a yin-yang in the colours of the two
/// sides, each holding a dot of the other ("no complete yin, no complete yang"), on a dark
/// rounded square — painted here pixel by pixel and encoded by tenbin's own PNG encoder when
/// first asked for, so no generated file is kept in the repository.
enum AppIcon {
    /// The file name `/static/` serves it under.
    static let touchIconName = "icon-180.png"
    /// Its edge in pixels (what iOS asks for).
    static let size = 180

    private static let background: [UInt8] = [0x1f, 0x29, 0x37]
    private static let one: [UInt8] = [0xf9, 0x73, 0x16]
    private static let two: [UInt8] = [0x0e, 0xa5, 0xe9]

    /// The PNG bytes (the corners outside the rounded square are transparent, which is what
    /// makes the encoder choose PNG).
    static func png() -> [UInt8] {
        let samples = 4
        var pixels = [UInt8](repeating: 0, count: size * size * 4)
        let scale = 64.0 / Double(size)
        for y in 0..<size {
            for x in 0..<size {
                var rgb = [0.0, 0.0, 0.0]
                var covered = 0.0
                for sy in 0..<samples {
                    for sx in 0..<samples {
                        let u = (Double(x) + (Double(sx) + 0.5) / Double(samples)) * scale
                        let v = (Double(y) + (Double(sy) + 0.5) / Double(samples)) * scale
                        guard let colour = colour(u, v) else { continue }
                        covered += 1
                        for channel in 0..<3 { rgb[channel] += Double(colour[channel]) }
                    }
                }
                let offset = (y * size + x) * 4
                if covered > 0 {
                    for channel in 0..<3 { pixels[offset + channel] = UInt8((rgb[channel] / covered).rounded()) }
                }
                pixels[offset + 3] = UInt8((covered * 255 / Double(samples * samples)).rounded())
            }
        }
        let buffer = PixelBuffer(width: size, height: size, channels: 4, pixels: pixels)
        // Encoding pixels made here cannot meet a bad input; an encoder failure (memory) leaves
        // the icon empty rather than stopping the server.
        return (try? ImageCodec().encode(buffer, source: "the app icon").bytes) ?? []
    }

    /// The colour at (u, v) in the SVG's 64-unit square, or nil outside its rounded corners.
    private static func colour(_ u: Double, _ v: Double) -> [UInt8]? {
        let radius = 14.0
        let cornerX = min(max(u, radius), 64 - radius)
        let cornerY = min(max(v, radius), 64 - radius)
        if distance(u, v, cornerX, cornerY) > radius { return nil }
        if distance(u, v, 32, 32) > 24 { return background }
        if distance(u, v, 32, 20) <= 4 { return one }
        if distance(u, v, 32, 44) <= 4 { return two }
        if distance(u, v, 32, 44) <= 12 { return one }
        if distance(u, v, 32, 20) <= 12 { return two }
        return u < 32 ? one : two
    }

    private static func distance(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> Double {
        ((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2)).squareRoot()
    }
}
