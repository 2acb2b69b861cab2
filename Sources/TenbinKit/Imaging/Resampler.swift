/// Area-averaging resampling for scaling images down: each output pixel is the mean of the
/// source area it covers, weighted by coverage. Integer arithmetic, so the same input
/// always gives the same bytes.
public enum Resampler {
    /// Fixed-point precision of the weights: 14 bits keeps every sum inside 32 bits.
    private static let precision = 14

    /// For each output index, the first source index and the weights of the sources it
    /// covers (summing to 1 << precision).
    private struct Contributions {
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
    public static func resize(_ image: PixelBuffer, width: Int, height: Int) -> PixelBuffer {
        if width == image.width && height == image.height { return image }
        let horizontal = Contributions(source: image.width, target: width)
        let vertical = Contributions(source: image.height, target: height)
        let c = image.channels
        // Horizontal pass into 16-bit-per-channel rows kept at 8.8 fixed point would cost
        // precision; keep the intermediate as bytes, rounding once per pass.
        var middle = [UInt8](repeating: 0, count: width * image.height * c)
        let round = Int32(1 << (precision - 1))
        image.pixels.withUnsafeBufferPointer { source in
            middle.withUnsafeMutableBufferPointer { target in
                horizontal.weights.withUnsafeBufferPointer { weights in
                    var accumulators = [Int32](repeating: 0, count: c)
                    for y in 0..<image.height {
                        let sourceRow = y * image.width * c
                        let targetRow = y * width * c
                        var weightIndex = 0
                        for x in 0..<width {
                            let start = Int(horizontal.starts[x])
                            let count = Int(horizontal.counts[x])
                            for channel in 0..<c { accumulators[channel] = round }
                            for k in 0..<count {
                                let weight = weights[weightIndex + k]
                                let base = sourceRow + (start + k) * c
                                for channel in 0..<c { accumulators[channel] &+= Int32(source[base + channel]) &* weight }
                            }
                            weightIndex += count
                            let base = targetRow + x * c
                            for channel in 0..<c { target[base + channel] = UInt8(clamping: accumulators[channel] >> Int32(precision)) }
                        }
                    }
                }
            }
        }
        var output = [UInt8](repeating: 0, count: width * height * c)
        let rowLength = width * c
        middle.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                vertical.weights.withUnsafeBufferPointer { weights in
                    var accumulator = [Int32](repeating: 0, count: rowLength)
                    var weightIndex = 0
                    for y in 0..<height {
                        let start = Int(vertical.starts[y])
                        let count = Int(vertical.counts[y])
                        accumulator.withUnsafeMutableBufferPointer { sums in
                            for i in 0..<rowLength { sums[i] = round }
                            for k in 0..<count {
                                let weight = weights[weightIndex + k]
                                let base = (start + k) * rowLength
                                for i in 0..<rowLength { sums[i] &+= Int32(source[base + i]) &* weight }
                            }
                            let base = y * rowLength
                            for i in 0..<rowLength { target[base + i] = UInt8(clamping: sums[i] >> Int32(precision)) }
                        }
                        weightIndex += count
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, channels: c, pixels: output)
    }

    /// The size that fits `width`×`height` inside `maxEdge` on its longer side, keeping the
    /// aspect ratio; the size itself when it already fits.
    public static func fitting(width: Int, height: Int, maxEdge: Int) -> (width: Int, height: Int) {
        let longest = max(width, height)
        guard longest > maxEdge else { return (width, height) }
        if width >= height {
            return (maxEdge, max(1, Int((Double(height) * Double(maxEdge) / Double(width)).rounded())))
        }
        return (max(1, Int((Double(width) * Double(maxEdge) / Double(height)).rounded())), maxEdge)
    }
}
