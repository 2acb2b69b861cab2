/// A picture's luma (0–255) averaged into ``PerceptualHash``'s 32×32 cells, fed one row at a
/// time, so a hash needs no whole frame: integer sums, the same whatever the order of rows.
struct LumaGrid {
    let width: Int
    let height: Int
    let channels: Int
    /// Which cell column each pixel column falls in; a picture narrower than the grid spreads
    /// its pixels over the cells they would cover.
    private let cellOfColumn: [Int]
    /// Each cell's sum of luma times 256.
    private var sums: [UInt64]
    /// One row's sums per cell column, added to the cells once per row.
    private var row: [UInt32]

    init(width: Int, height: Int, channels: Int) {
        let grid = PerceptualHash.grid
        self.width = width
        self.height = height
        self.channels = channels
        cellOfColumn = (0..<width).map { $0 * grid / width }
        sums = [UInt64](repeating: 0, count: grid * grid)
        row = [UInt32](repeating: 0, count: grid)
    }

    /// The BT.601 luma of the RGB pixel at `at`, times 256.
    @inline(__always)
    private static func luma(_ pixels: UnsafePointer<UInt8>, _ at: Int) -> UInt32 {
        UInt32(pixels[at]) &* 77 &+ UInt32(pixels[at + 1]) &* 150 &+ UInt32(pixels[at + 2]) &* 29
    }

    /// Adds row `y` (`width * channels` bytes).
    mutating func add(row pixels: UnsafePointer<UInt8>, y: Int) {
        let grid = PerceptualHash.grid
        let (width, channels) = (self.width, self.channels)
        cellOfColumn.withUnsafeBufferPointer { cellOf in
            row.withUnsafeMutableBufferPointer { row in
                for cell in 0..<grid { row[cell] = 0 }
                var at = 0
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
                    // Over white, as a tool turning it into a JPEG shows it: what a
                    // transparent pixel hides is not part of the picture.
                    for x in 0..<width {
                        let alpha = UInt32(pixels[at + 3])
                        row[cellOf[x]] &+= (Self.luma(pixels, at) &* alpha &+ 65_280 &* (255 &- alpha)) / 255
                        at += channels
                    }
                }
                let base = (y * grid / height) * grid
                sums.withUnsafeMutableBufferPointer { sums in
                    for cell in 0..<grid { sums[base + cell] &+= UInt64(row[cell]) }
                }
            }
        }
    }

    /// Each cell's mean luma, once every row is added.
    func cells() -> [Double] {
        let grid = PerceptualHash.grid
        // How many pixels each cell holds: the rows of its cell row times the columns of its
        // cell column.
        var rowsOfCell = [UInt64](repeating: 0, count: grid)
        var columnsOfCell = [UInt64](repeating: 0, count: grid)
        for y in 0..<height { rowsOfCell[y * grid / height] += 1 }
        for cell in cellOfColumn { columnsOfCell[cell] += 1 }
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
