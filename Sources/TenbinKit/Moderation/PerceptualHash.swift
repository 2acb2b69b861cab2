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
        let grid = Self.grid
        let luma = Self.averagedLuma(image)
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

    /// The BT.601 luma of the RGB pixel at `at`, times 256.
    @inline(__always)
    private static func luma(_ pixels: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
        UInt32(pixels[at]) &* 77 &+ UInt32(pixels[at + 1]) &* 150 &+ UInt32(pixels[at + 2]) &* 29
    }

    /// The picture's luma (0–255), each of the 32×32 cells the mean of the pixels it covers.
    private static func averagedLuma(_ image: PixelBuffer) -> [Double] {
        let grid = Self.grid
        let (width, height, channels) = (image.width, image.height, image.channels)
        // Which cell column each pixel column falls in; a picture narrower than the grid
        // spreads its pixels over the cells they would cover.
        let cellOfColumn = (0..<width).map { $0 * grid / width }
        var sums = [UInt64](repeating: 0, count: grid * grid)
        // How many pixels each cell holds: the rows of its cell row times the columns of its
        // cell column.
        var rowsOfCell = [UInt64](repeating: 0, count: grid)
        var columnsOfCell = [UInt64](repeating: 0, count: grid)
        for y in 0..<height { rowsOfCell[y * grid / height] += 1 }
        for cell in cellOfColumn { columnsOfCell[cell] += 1 }
        image.pixels.withUnsafeBufferPointer { pixels in
            cellOfColumn.withUnsafeBufferPointer { cellOf in
                sums.withUnsafeMutableBufferPointer { sums in
                    // One row's sums per cell column, added to the cells once per row.
                    var row = [UInt32](repeating: 0, count: grid)
                    row.withUnsafeMutableBufferPointer { row in
                        for y in 0..<height {
                            for cell in 0..<grid { row[cell] = 0 }
                            var at = y * width * channels
                            if channels < 3 {
                                for x in 0..<width {
                                    row[cellOf[x]] &+= UInt32(pixels[at]) << 8
                                    at += channels
                                }
                            } else if channels == 3 {
                                // BT.601 luma in fixed point (weights summing to 256).
                                for x in 0..<width {
                                    row[cellOf[x]] &+= Self.luma(pixels, at)
                                    at += channels
                                }
                            } else {
                                // Over white, as a tool turning it into a JPEG shows it: what
                                // a transparent pixel hides is not part of the picture.
                                for x in 0..<width {
                                    let alpha = UInt32(pixels[at + 3])
                                    row[cellOf[x]] &+= (Self.luma(pixels, at) &* alpha &+ 65_280 &* (255 &- alpha)) / 255
                                    at += channels
                                }
                            }
                            let base = (y * grid / height) * grid
                            for cell in 0..<grid { sums[base + cell] &+= UInt64(row[cell]) }
                        }
                    }
                }
            }
        }
        let counts = (0..<(grid * grid)).map { rowsOfCell[$0 / grid] * columnsOfCell[$0 % grid] }
        // A picture smaller than the grid leaves cells empty: each takes its nearest filled one's
        // value along the row and column it would have been covered by.
        return (0..<(grid * grid)).map { cell in
            var source = cell
            if counts[source] == 0 {
                let (y, x) = (cell / grid, cell % grid)
                source = (y * height / grid * grid / height) * grid + (x * width / grid * grid / width)
            }
            return counts[source] == 0 ? 0 : Double(sums[source]) / Double(counts[source]) / 256
        }
    }
}
