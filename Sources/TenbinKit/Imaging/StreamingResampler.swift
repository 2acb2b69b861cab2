/// ``Resampler``'s area averaging fed one source row at a time as a decoder produces them,
/// so a large image is shrunk while it streams and its full frame is never held in memory.
/// Gives exactly the bytes `Resampler.resize` would.
///
/// Each source row covers one unit of height and each output row at least one, so a source
/// row contributes to at most two output rows: two accumulators suffice. An output row is
/// shrunk horizontally as soon as its last source row arrives, so only the final image is
/// ever held, and not even that when its rows are handed on as they are finished.
final class StreamingResampler {
    let width: Int
    let channels: Int
    let sourceHeight: Int
    let targetWidth: Int
    let targetHeight: Int
    private let contributions: Resampler.Contributions
    /// Where each output row's weights start in `contributions.weights`.
    private let weightOffsets: [Int]
    private let taps: Resampler.Taps
    /// Two rows of sums, `width * channels` each: output rows alternate between them.
    private var accumulators: [Int32]
    /// One finished row before its horizontal pass.
    private var tall: [UInt8]
    /// The whole shrunk image, or one row of it when rows are handed to `deliver`.
    private(set) var output: [UInt8]
    /// Takes each finished output row (`targetWidth * channels` bytes, valid only during the
    /// call) and its index, in order; nil keeps the whole image in `output`.
    private let deliver: ((UnsafePointer<UInt8>, Int) -> Void)?
    /// The first output row not yet finished.
    private var nextOutput = 0

    init(
        width: Int, channels: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int,
        deliver: ((UnsafePointer<UInt8>, Int) -> Void)? = nil
    ) {
        // Invariant of its callers: this only ever shrinks.
        precondition(targetHeight <= sourceHeight && targetHeight > 0, "the streaming resampler only shrinks")
        precondition(targetWidth <= width && targetWidth > 0, "the streaming resampler only shrinks")
        self.width = width
        self.channels = channels
        self.sourceHeight = sourceHeight
        self.targetWidth = targetWidth
        self.targetHeight = targetHeight
        contributions = Resampler.Contributions(source: sourceHeight, target: targetHeight)
        var offsets: [Int] = []
        var offset = 0
        for count in contributions.counts {
            offsets.append(offset)
            offset += Int(count)
        }
        weightOffsets = offsets
        taps = Resampler.Taps(source: width, target: targetWidth)
        let rowLength = width * channels
        accumulators = [Int32](repeating: Resampler.rounding, count: 2 * rowLength)
        tall = [UInt8](repeating: 0, count: rowLength)
        self.deliver = deliver
        output = [UInt8](repeating: 0, count: targetWidth * channels * (deliver == nil ? targetHeight : 1))
    }

    /// The weight of source row `y` in output row `outputRow`, 0 when it does not cover it
    /// (a row may also cover so little that its weight rounds to 0).
    private func weight(_ outputRow: Int, _ y: Int) -> Int32 {
        guard outputRow < targetHeight else { return 0 }
        let start = Int(contributions.starts[outputRow])
        guard y >= start && y < start + Int(contributions.counts[outputRow]) else { return 0 }
        return contributions.weights[weightOffsets[outputRow] + y - start]
    }

    /// Whether source row `y` is the last one output row `outputRow` covers.
    private func isLast(_ y: Int, of outputRow: Int) -> Bool {
        outputRow < targetHeight && y == Int(contributions.starts[outputRow]) + Int(contributions.counts[outputRow]) - 1
    }

    /// Adds source row `y` (rows arrive in order, `width * channels` bytes each).
    func add(row: UnsafePointer<UInt8>, y: Int) {
        let rowLength = width * channels
        let first = nextOutput
        // At most two output rows overlap one source row: the first unfinished one and the next.
        let w0 = weight(first, y)
        let w1 = weight(first + 1, y)
        accumulators.withUnsafeMutableBufferPointer { all in
            let sums0 = all.baseAddress! + (first & 1) * rowLength  // never empty: rowLength > 0
            let sums1 = all.baseAddress! + ((first + 1) & 1) * rowLength
            if w1 == 0 {
                for i in 0..<rowLength { sums0[i] &+= Int32(row[i]) &* w0 }
            } else {
                // One pass over the row feeds both output rows it straddles.
                for i in 0..<rowLength {
                    let value = Int32(row[i])
                    sums0[i] &+= value &* w0
                    sums1[i] &+= value &* w1
                }
            }
        }
        if isLast(y, of: first) { finish(first) }
        if isLast(y, of: first + 1) { finish(first + 1) }
    }

    private func finish(_ outputRow: Int) {
        let rowLength = width * channels
        let outLength = targetWidth * channels
        let shift = Int32(Resampler.precision)
        accumulators.withUnsafeMutableBufferPointer { all in
            tall.withUnsafeMutableBufferPointer { tall in
                let sums = all.baseAddress! + (outputRow & 1) * rowLength  // never empty: rowLength > 0
                // Two plain loops (narrow, then reset) so each vectorises.
                for i in 0..<rowLength { tall[i] = UInt8(truncatingIfNeeded: sums[i] &>> shift) }
                sums.update(repeating: Resampler.rounding, count: rowLength)
                output.withUnsafeMutableBufferPointer { target in
                    // Never empty: outLength > 0.
                    let row = target.baseAddress! + (deliver == nil ? outputRow * outLength : 0)
                    if targetWidth == width {
                        row.update(from: tall.baseAddress!, count: rowLength)
                    } else {
                        Resampler.shrinkRow(tall.baseAddress!, into: row, taps: taps, channels: channels)
                    }
                    deliver?(UnsafePointer(row), outputRow)
                }
            }
        }
        nextOutput = outputRow + 1
    }

    /// The shrunk image, once every source row has been added; nil when its rows were handed
    /// on instead.
    var result: PixelBuffer? {
        deliver == nil ? PixelBuffer(width: targetWidth, height: targetHeight, channels: channels, pixels: output) : nil
    }
}
