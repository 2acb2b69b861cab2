import Glibc

/// A 64-bit perceptual hash of an image (a DCT pHash): pictures that look alike have hashes a
/// few bits apart whatever their encoding, size or quality, so a blocked picture is recognised
/// after it was re-encoded, resized or mildly cropped (see ``ImageBlocklist``).
///
/// How it is made: the decoded, upright pixels become luma (transparent ones over white),
/// averaged into a 32×32 grid (the aspect ratio is not kept, so scaling either side changes
/// nothing); the 8×8 lowest frequencies of its two-dimensional DCT-II give one bit each, set
/// when the coefficient is above the median of the 63 that are not the mean (bit `8u + v`,
/// the DC term's always set). A picture with almost no structure (a plain colour, a faint
/// gradient) has no reliable hash: ``init(of:)`` returns nil for it, and only its exact digest
/// can block it. A tiny picture of a few flat blocks (the 32×16 orientation fixtures) has a
/// hash, but many of its coefficients tie at the median, so its copies may land far from it.
public struct PerceptualHash: Sendable, Hashable, CustomStringConvertible {
    /// The 64 bits.
    public let bits: UInt64

    /// A hash from its bits.
    public init(bits: UInt64) {
        self.bits = bits
    }

    /// A hash from its 16 hexadecimal digits (as ``description`` prints it).
    public init?(hex: String) {
        guard hex.utf8.count == 16, let bits = UInt64(hex, radix: 16) else { return nil }
        self.bits = bits
    }

    /// The bits as a signed integer, the way SQL columns store them.
    package var storedValue: Int64 { Int64(bitPattern: bits) }

    /// A hash from a stored column's value.
    package init(storedValue: Int64) {
        self.bits = UInt64(bitPattern: storedValue)
    }

    /// How many of the 64 bits differ.
    public func distance(to other: PerceptualHash) -> Int {
        (bits ^ other.bits).nonzeroBitCount
    }

    /// 16 lowercase hexadecimal digits.
    public var description: String {
        let hex = String(bits, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The side of the grid the pixels are averaged into.
    static let grid = 32
    /// The side of the block of lowest frequencies the bits come from.
    static let block = 8
    /// Below this spread of the 63 non-mean coefficients (their mean absolute value, in luma
    /// units of the orthonormal DCT) the bits would be decided by noise: a picture of one
    /// colour re-encoded twice would hash far apart, and every plain picture near every other.
    static let minimumStructure = 1.0

    /// The hash of decoded pixels, or nil for a picture with almost no structure.
    public init?(of image: PixelBuffer) {
        guard image.width > 0, image.height > 0 else { return nil }
        var grid = LumaGrid(width: image.width, height: image.height, channels: image.channels)
        image.pixels.withUnsafeBufferPointer { pixels in
            // Never empty: width, height and channels are positive.
            let stride = image.width * image.channels
            for y in 0..<image.height { grid.add(row: pixels.baseAddress! + y * stride, y: y) }
        }
        self.init(luma: grid)
    }

    /// The hash of a picture whose rows were averaged as they were made (a post re-encoding
    /// while it decodes), or nil for a picture with almost no structure: the same hash as
    /// ``init(of:)`` gives for the same pixels.
    init?(luma: LumaGrid) {
        let grid = Self.grid
        let luma = luma.cells()
        // The 8 lowest DCT-II basis rows over 32 samples, orthonormal.
        var basis = [Double](repeating: 0, count: Self.block * grid)
        for u in 0..<Self.block {
            let scale = u == 0 ? (1.0 / Double(grid)).squareRoot() : (2.0 / Double(grid)).squareRoot()
            for x in 0..<grid {
                basis[u * grid + x] = scale * cos(Double(2 * x + 1) * Double(u) * Double.pi / Double(2 * grid))
            }
        }
        // Rows first (each grid row against the 8 basis rows), then columns.
        var rows = [Double](repeating: 0, count: grid * Self.block)
        for y in 0..<grid {
            for v in 0..<Self.block {
                var sum = 0.0
                for x in 0..<grid { sum += luma[y * grid + x] * basis[v * grid + x] }
                rows[y * Self.block + v] = sum
            }
        }
        var coefficients = [Double](repeating: 0, count: Self.block * Self.block)
        for u in 0..<Self.block {
            for v in 0..<Self.block {
                var sum = 0.0
                for y in 0..<grid { sum += rows[y * Self.block + v] * basis[u * grid + y] }
                coefficients[u * Self.block + v] = sum
            }
        }
        let ac = coefficients.dropFirst()
        guard ac.reduce(0, { $0 + abs($1) }) / Double(ac.count) >= Self.minimumStructure else { return nil }
        let sorted = ac.sorted()
        let median = (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        var bits: UInt64 = 1
        for index in 1..<coefficients.count where coefficients[index] > median { bits |= 1 << UInt64(index) }
        self.bits = bits
    }
}
