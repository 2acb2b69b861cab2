import Testing

@testable import TenbinKit

/// A decode's rows shrunk on a thread beside the decoder, taken and given back band by band,
/// give the image the decoding thread alone gives.
@Suite struct RowSinkTests {
    static let width = 300
    static let height = 200
    static let channels = 3
    static let pixels = (0..<(width * height * channels)).map { UInt8(truncatingIfNeeded: $0 &* 7 / 5 + $0 / 900) }

    /// Feeds the rows to a sink as a C decoder would and returns what it shrank them to.
    static func shrink(beside: @escaping () -> Bool) -> PixelBuffer? {
        let sink = RowSink(.size(width: 120, height: 80), beside: beside)
        let status = pixels.withUnsafeBufferPointer { buffer in
            sink.receive { context, begin, row in
                guard begin(context, Int32(width), Int32(height), Int32(channels)) == 0 else { return 1 }
                for y in 0..<height { row(context, buffer.baseAddress! + y * width * channels, Int32(y)) }
                return 0
            }
        }
        #expect(status == 0)
        return sink.result
    }

    final class Count: @unchecked Sendable { var value = 0 }

    @Test func aThreadTakenAndGivenBackBandByBandShrinksToTheSameImage() throws {
        let inline = try #require(Self.shrink { false })
        #expect(inline.width == 120 && inline.height == 80)
        #expect(Self.shrink { true } == inline)
        // Two bands beside, one on the decoding thread, and again: the thread starts, ends
        // and starts again, each band asked once.
        let asked = Count()
        let switching = Self.shrink {
            asked.value += 1
            return asked.value % 3 != 0
        }
        #expect(switching == inline)
        #expect(asked.value == (Self.height + ShrinkThread.chunkRows - 1) / ShrinkThread.chunkRows)
    }
}
