import Glibc
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

    /// Takes the shrunk rows and notes, for each, whether it was handed on by the thread
    /// that called the decode (true) or by the thread beside it.
    final class Rows: ShrunkRowConsumer {
        let caller = pthread_self()
        var pixels: [UInt8] = []
        var onCaller: [Bool] = []
        var rowBytes = 0

        func begin(width: Int, height: Int, channels: Int) -> Bool {
            rowBytes = width * channels
            return true
        }

        func take(row: UnsafePointer<UInt8>, y: Int) {
            pixels += UnsafeBufferPointer(start: row, count: rowBytes)
            onCaller.append(pthread_equal(pthread_self(), caller) != 0)
        }
    }

    /// Feeds the rows to a sink handing them on to `rows`.
    static func shrink(into rows: Rows, beside: @escaping () -> Bool) {
        let sink = RowSink(.size(width: 120, height: 80), consumer: rows, beside: beside)
        let status = pixels.withUnsafeBufferPointer { buffer in
            sink.receive { context, begin, row in
                guard begin(context, Int32(width), Int32(height), Int32(channels)) == 0 else { return 1 }
                for y in 0..<height { row(context, buffer.baseAddress! + y * width * channels, Int32(y)) }
                return 0
            }
        }
        #expect(status == 0)
    }

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

        // Where the rows were handed on: the thread is really taken, given back and taken
        // again (asked 13 times: no at bands 2, 5, 8 and 11, so the first and last rows go
        // beside and some in between on the decoding thread).
        let rows = Rows()
        asked.value = 0
        Self.shrink(into: rows) {
            asked.value += 1
            return asked.value % 3 != 0
        }
        #expect(rows.pixels == inline.pixels)
        #expect(rows.onCaller.count == 80)
        #expect(rows.onCaller.first == false && rows.onCaller.last == false, "\(rows.onCaller)")
        #expect(rows.onCaller.contains(true), "\(rows.onCaller)")
        let alone = Rows()
        Self.shrink(into: alone) { false }
        #expect(alone.onCaller.allSatisfy { $0 } && alone.pixels == inline.pixels)
    }
}
