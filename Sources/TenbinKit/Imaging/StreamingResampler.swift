/// The vertical half of ``Resampler``'s area averaging, fed one source row at a time as a
/// decoder produces them, so a large image is shrunk while it streams and its full frame
/// is never held in memory. Gives exactly the bytes `Resampler.resize` would.
///
/// Each source row covers one unit of height and each output row at least one, so a source
/// row contributes to at most two output rows: two accumulators suffice.
final class StreamingResampler {
    let width: Int
    let channels: Int
    let sourceHeight: Int
    let targetHeight: Int
    private let contributions: Resampler.Contributions
    /// Where each output row's weights start in `contributions.weights`.
    private let weightOffsets: [Int]
    private var accumulators: [[Int32]]
    private(set) var output: [UInt8]
    /// The first output row not yet finished.
    private var nextOutput = 0

    init(width: Int, channels: Int, sourceHeight: Int, targetHeight: Int) {
        // Invariant of its callers: this only ever shrinks.
        precondition(targetHeight <= sourceHeight && targetHeight > 0, "the streaming resampler only shrinks")
        self.width = width
        self.channels = channels
        self.sourceHeight = sourceHeight
        self.targetHeight = targetHeight
        contributions = Resampler.Contributions(source: sourceHeight, target: targetHeight)
        var offsets: [Int] = []
        var offset = 0
        for count in contributions.counts {
            offsets.append(offset)
            offset += Int(count)
        }
        weightOffsets = offsets
        let rowLength = width * channels
        accumulators = [[Int32](repeating: Resampler.rounding, count: rowLength), [Int32](repeating: Resampler.rounding, count: rowLength)]
        output = [UInt8](repeating: 0, count: rowLength * targetHeight)
    }

    /// Adds source row `y` (rows arrive in order, `width * channels` bytes each).
    func add(row: UnsafePointer<UInt8>, y: Int) {
        let rowLength = width * channels
        var outputRow = nextOutput
        // At most two output rows overlap one source row.
        while outputRow < targetHeight && outputRow < nextOutput + 2 {
            let start = Int(contributions.starts[outputRow])
            let count = Int(contributions.counts[outputRow])
            if y < start { break }
            if y < start + count {
                let weight = contributions.weights[weightOffsets[outputRow] + y - start]
                accumulators[outputRow & 1].withUnsafeMutableBufferPointer { sums in
                    for i in 0..<rowLength { sums[i] &+= Int32(row[i]) &* weight }
                }
                if y == start + count - 1 { finish(outputRow) }
            }
            outputRow += 1
        }
    }

    private func finish(_ outputRow: Int) {
        let rowLength = width * channels
        let base = outputRow * rowLength
        accumulators[outputRow & 1].withUnsafeMutableBufferPointer { sums in
            output.withUnsafeMutableBufferPointer { target in
                for i in 0..<rowLength {
                    target[base + i] = UInt8(truncatingIfNeeded: sums[i] >> Int32(Resampler.precision))
                    sums[i] = Resampler.rounding
                }
            }
        }
        nextOutput = outputRow + 1
    }

    /// The shrunk image, once every source row has been added.
    var result: PixelBuffer {
        PixelBuffer(width: width, height: targetHeight, channels: channels, pixels: output)
    }
}
