/// Area-averaging resampling for scaling images down: each output pixel is the mean of the
/// source area it covers, weighted by coverage. Integer arithmetic, so the same input
/// always gives the same bytes.
package enum Resampler {
    /// Fixed-point precision of the weights: 14 bits keeps every sum inside 32 bits.
    static let precision = 14

    /// For each output index, the first source index and the weights of the sources it
    /// covers (summing to 1 << precision).
    struct Contributions {
        var starts: [Int32] = []
        var counts: [Int32] = []
        var weights: [Int32] = []
        var maxCount = 0

        init(source: Int, target: Int) {
            let scale = Double(source) / Double(target)
            let one = 1 << Resampler.precision
            for index in 0..<target {
                let begin = Double(index) * scale
                let end = min(Double(index + 1) * scale, Double(source))
                let first = Int(begin)
                let last = min(Int((end - 1e-9).rounded(.up)), source) - 1
                var row: [Int] = []
                for s in first...max(first, last) {
                    let covered = min(end, Double(s + 1)) - max(begin, Double(s))
                    row.append(Int((covered / (end - begin) * Double(one)).rounded()))
                }
                // Give rounding's leftover to the largest weight so each row sums exactly.
                let largest = row.indices.max { row[$0] < row[$1] }!  // rows are never empty
                row[largest] += one - row.reduce(0, +)
                starts.append(Int32(first))
                counts.append(Int32(row.count))
                weights.append(contentsOf: row.map(Int32.init))
                maxCount = max(maxCount, row.count)
            }
        }
    }

    /// `image` scaled to exactly `width`×`height` (each no larger than the source's).
    ///
    /// The vertical pass runs first: it sums whole rows, a loop the compiler vectorises, and
    /// it shrinks the image before the costlier per-pixel horizontal pass.
    package static func resize(_ image: PixelBuffer, width: Int, height: Int) -> PixelBuffer {
        if width == image.width && height == image.height { return image }
        let tall = resizeVertically(image, height: height)
        return resizeHorizontally(tall, width: width)
    }

    static let rounding = Int32(1 << (precision - 1))

    private static func resizeVertically(_ image: PixelBuffer, height: Int) -> PixelBuffer {
        if height == image.height { return image }
        let contributions = Contributions(source: image.height, target: height)
        let rowLength = image.width * image.channels
        var output = [UInt8](repeating: 0, count: rowLength * height)
        var sums = [Int32](repeating: 0, count: rowLength)
        image.pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                sums.withUnsafeMutableBufferPointer { sums in
                    var weightIndex = 0
                    for y in 0..<height {
                        let start = Int(contributions.starts[y])
                        let count = Int(contributions.counts[y])
                        for i in 0..<rowLength { sums[i] = rounding }
                        for k in 0..<count {
                            let weight = contributions.weights[weightIndex + k]
                            let row = UnsafeBufferPointer(rebasing: source[((start + k) * rowLength)...].prefix(rowLength))
                            for i in 0..<rowLength { sums[i] &+= Int32(row[i]) &* weight }
                        }
                        weightIndex += count
                        let base = y * rowLength
                        for i in 0..<rowLength { target[base + i] = UInt8(truncatingIfNeeded: sums[i] >> Int32(precision)) }
                    }
                }
            }
        }
        return PixelBuffer(width: image.width, height: height, channels: image.channels, pixels: output)
    }

    static func resizeHorizontally(_ image: PixelBuffer, width: Int) -> PixelBuffer {
        if width == image.width { return image }
        let taps = Taps(source: image.width, target: width)
        let channels = image.channels
        var output = [UInt8](repeating: 0, count: width * image.height * channels)
        image.pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                for y in 0..<image.height {
                    let sourceRow = source.baseAddress! + y * image.width * channels  // non-empty image
                    let targetRow = target.baseAddress! + y * width * channels  // non-empty image
                    shrinkRow(sourceRow, into: targetRow, taps: taps, channels: channels)
                }
            }
        }
        return PixelBuffer(width: width, height: image.height, channels: channels, pixels: output)
    }

    /// The horizontal weights laid out for speed: every output pixel reads the same number
    /// of source pixels (`count`), the shorter ones padded with zero weights, their first
    /// pixel moved left where needed so no read passes the row's end. Zero weights add
    /// nothing, so the sums are exactly those of ``Contributions``.
    struct Taps {
        let count: Int
        let starts: [Int32]
        let weights: [Int32]

        init(source: Int, target: Int) {
            let contributions = Contributions(source: source, target: target)
            let count = contributions.maxCount
            var starts: [Int32] = []
            var weights: [Int32] = []
            var offset = 0
            for index in 0..<target {
                let start = Int(contributions.starts[index])
                let used = Int(contributions.counts[index])
                // maxCount never exceeds the source width, so the moved start stays >= 0.
                let padded = min(start, source - count)
                var row = [Int32](repeating: 0, count: count)
                for k in 0..<used { row[start - padded + k] = contributions.weights[offset + k] }
                offset += used
                starts.append(Int32(padded))
                weights.append(contentsOf: row)
            }
            self.count = count
            self.starts = starts
            self.weights = weights
        }
    }

    /// Shrinks one row of `taps.starts.count` output pixels from `source`.
    static func shrinkRow(_ source: UnsafePointer<UInt8>, into target: UnsafeMutablePointer<UInt8>, taps: Taps, channels: Int) {
        taps.weights.withUnsafeBufferPointer { weights in
            taps.starts.withUnsafeBufferPointer { starts in
                switch (channels, taps.count) {
                case (1, _): horizontalRow(source, target, starts, weights, taps.count, channels: 1)
                case (3, 2): horizontalRow(source, target, starts, weights, 2, channels: 3)
                case (3, 3): horizontalRow(source, target, starts, weights, 3, channels: 3)
                case (3, _): horizontalRow(source, target, starts, weights, taps.count, channels: 3)
                case (_, 2): horizontalRow(source, target, starts, weights, 2, channels: 4)
                case (_, 3): horizontalRow(source, target, starts, weights, 3, channels: 4)
                default: horizontalRow(source, target, starts, weights, taps.count, channels: 4)
                }
            }
        }
    }

    /// One row of the horizontal pass. Inlined with constant `channels` (and, for the
    /// common shrinks by less than two, a constant `count`), so each case compiles to
    /// straight-line arithmetic on registers.
    @inline(__always)
    private static func horizontalRow(
        _ source: UnsafePointer<UInt8>, _ target: UnsafeMutablePointer<UInt8>, _ starts: UnsafeBufferPointer<Int32>,
        _ weights: UnsafeBufferPointer<Int32>, _ count: Int, channels: Int
    ) {
        var weight = weights.baseAddress!  // never empty: every image has a pixel
        var out = target
        for x in 0..<starts.count {
            var pixel = source + Int(starts[x]) * channels
            var c0 = rounding
            var c1 = rounding
            var c2 = rounding
            var c3 = rounding
            for k in 0..<count {
                let w = weight[k]
                c0 &+= Int32(pixel[0]) &* w
                if channels > 1 {
                    c1 &+= Int32(pixel[1]) &* w
                    c2 &+= Int32(pixel[2]) &* w
                }
                if channels > 3 { c3 &+= Int32(pixel[3]) &* w }
                pixel += channels
            }
            weight += count
            out[0] = UInt8(truncatingIfNeeded: c0 &>> Int32(precision))
            if channels > 1 {
                out[1] = UInt8(truncatingIfNeeded: c1 &>> Int32(precision))
                out[2] = UInt8(truncatingIfNeeded: c2 &>> Int32(precision))
            }
            if channels > 3 { out[3] = UInt8(truncatingIfNeeded: c3 &>> Int32(precision)) }
            out += channels
        }
    }

    /// The size that fits `width`×`height` inside `maxEdge` on its longer side, keeping the
    /// aspect ratio; the size itself when it already fits.
    package static func fitting(width: Int, height: Int, maxEdge: Int) -> (width: Int, height: Int) {
        let longest = max(width, height)
        guard longest > maxEdge else { return (width, height) }
        if width >= height {
            return (maxEdge, max(1, Int((Double(height) * Double(maxEdge) / Double(width)).rounded())))
        }
        return (max(1, Int((Double(width) * Double(maxEdge) / Double(height)).rounded())), maxEdge)
    }
}
