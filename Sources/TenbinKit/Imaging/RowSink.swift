import CImageCodec
import Dispatch

/// Receives an image's rows from a C decoder and shrinks them as they arrive, so no decoder
/// needs the whole frame in Swift. One sink serves one decode.
final class RowSink {
    /// The size the rows are shrunk to, or the longest edge to fit when the decoded size is
    /// only known once decoding starts (nil: keep the decoded size).
    enum Target {
        case size(width: Int, height: Int)
        case maxEdge(Int?)
    }

    private let target: Target
    private let consumer: ShrunkRowConsumer?
    private let beside: () -> Bool
    private(set) var resampler: StreamingResampler?
    /// The thread that shrinks (and hands on) the rows while `beside` says so.
    private var thread: ShrinkThread?
    /// Decoded rows gathered for the thread: `pending` of them, the first being row `first`.
    private var chunk: [UInt8] = []
    private var pending = 0
    private var first = 0
    private var rowBytes = 0

    /// A sink keeping the shrunk image (`consumer` nil) or handing each shrunk row to
    /// `consumer` as it is finished, so not even the shrunk image is held.
    ///
    /// `beside` is asked at the start of every band of ``ShrinkThread/chunkRows`` rows: while
    /// it says yes, the rows are shrunk and handed on by a thread of their own while the
    /// decoder goes on decoding (in about the decoder's time instead of the decoder's and the
    /// rest's); once it says no, the thread finishes what it was given and the rows are shrunk
    /// on the decoding thread again. Either way every row is shrunk once, in order: the same
    /// result.
    init(_ target: Target, consumer: ShrunkRowConsumer? = nil, beside: @escaping () -> Bool = { false }) {
        self.target = target
        self.consumer = consumer
        self.beside = beside
    }

    /// The shrunk image, once the decoder has delivered every row (nil with a consumer).
    var result: PixelBuffer? { resampler?.result }

    fileprivate func begin(width: Int, height: Int, channels: Int) -> Int32 {
        guard width > 0, height > 0, [1, 3, 4].contains(channels) else { return 1 }
        let size: (width: Int, height: Int)
        switch target {
        // A decoder that shrinks on load never goes below the target, so it always fits.
        case .size(let w, let h): size = (min(w, width), min(h, height))
        case .maxEdge(let edge): size = Resampler.fitting(width: width, height: height, maxEdge: edge ?? Int.max)
        }
        var deliver: ((UnsafePointer<UInt8>, Int) -> Void)?
        if let consumer {
            guard consumer.begin(width: size.width, height: size.height, channels: channels) else { return 1 }
            deliver = { row, y in consumer.take(row: row, y: y) }
        }
        let resampler = StreamingResampler(
            width: width, channels: channels, sourceHeight: height, targetWidth: size.width, targetHeight: size.height,
            deliver: deliver)
        self.resampler = resampler
        rowBytes = width * channels
        return 0
    }

    fileprivate func add(row: UnsafePointer<UInt8>, y: Int) {
        guard let resampler else { return }
        if y % ShrinkThread.chunkRows == 0 {
            // A band starts (rows come in order from 0, so no rows are pending here).
            let wanted = beside()
            if wanted && thread == nil {
                thread = ShrinkThread(resampler: resampler, rowBytes: rowBytes)
            } else if !wanted {
                endRows()
            }
        }
        guard let thread else {
            resampler.add(row: row, y: y)
            return
        }
        if pending == 0 {
            first = y
            chunk = thread.emptyBand()
        }
        chunk.append(contentsOf: UnsafeBufferPointer(start: row, count: rowBytes))
        pending += 1
        if pending == ShrinkThread.chunkRows { handOver(to: thread) }
    }

    private func handOver(to thread: ShrinkThread) {
        thread.shrink(chunk, rows: pending, first: first)
        chunk = []
        pending = 0
    }

    /// Hands the last rows to the thread and waits until it has shrunk everything it was
    /// given: then the result and the consumer are the caller's again.
    private func endRows() {
        guard let thread else { return }
        self.thread = nil
        if pending > 0 { handOver(to: thread) }
        thread.finish()
    }

    /// Runs `decode` with this sink as the context of the two C callbacks it must pass on,
    /// and returns the decoder's status once every row it gave is shrunk and handed on (also
    /// when it failed half way).
    func receive(
        _ decode: (UnsafeMutableRawPointer, tb_begin_callback, tb_row_callback) -> Int32
    ) -> Int32 {
        let status = withExtendedLifetime(self) {
            decode(Unmanaged.passUnretained(self).toOpaque(), rowSinkBegin, rowSinkRow)
        }
        endRows()
        return status
    }
}

/// A resampler fed decoded rows on a ``SerialThread`` of its own. The resampler (and the
/// consumer it hands rows to) is touched only on that thread until ``finish()`` has joined it,
/// which is what makes the `@unchecked Sendable` safe: the decoding thread only copies rows.
final class ShrinkThread: @unchecked Sendable {
    /// Decoded rows handed over at a time: one band of a 4:2:0 JPEG's blocks.
    static let chunkRows = 16
    /// Bands handed over and not yet shrunk, at most: when the shrinking falls behind (a busy
    /// machine), the decoder waits rather than holding the decoded frame in bands.
    static let bandsAhead = 8

    private let resampler: StreamingResampler
    private let rowBytes: Int
    private let thread = SerialThread()
    private let room = DispatchSemaphore(value: bandsAhead)
    /// Bands shrunk and emptied, for the decoder to fill again: a photo's rows go through a
    /// few buffers instead of fresh pages for every band.
    private let spare = Locked<[[UInt8]]>([])

    init(resampler: StreamingResampler, rowBytes: Int) {
        self.resampler = resampler
        self.rowBytes = rowBytes
    }

    /// An empty buffer with room for a band.
    func emptyBand() -> [UInt8] {
        if let band = spare.withLock({ $0.popLast() }) { return band }
        var band: [UInt8] = []
        band.reserveCapacity(rowBytes * Self.chunkRows)
        return band
    }

    /// Queues `rows` packed decoded rows, the first being row `first`, after those queued
    /// before; waits while ``bandsAhead`` bands are queued.
    func shrink(_ chunk: [UInt8], rows: Int, first: Int) {
        room.wait()
        thread.async {
            var band = chunk
            band.withUnsafeBufferPointer { band in
                for index in 0..<rows {
                    self.resampler.add(row: band.baseAddress! + index * self.rowBytes, y: first + index)
                }
            }
            band.removeAll(keepingCapacity: true)
            self.spare.withLock { $0.append(band) }
            self.room.signal()
        }
    }

    /// Waits for every queued row to be shrunk and ends the thread.
    func finish() {
        thread.finish()
    }
}

/// Takes an image's shrunk rows as a decode makes them (``RowSink``'s consumer).
protocol ShrunkRowConsumer: AnyObject {
    /// Called once the shrunk size is known, before any row; false stops the decode.
    func begin(width: Int, height: Int, channels: Int) -> Bool
    /// Row `y` of the shrunk image (`width * channels` bytes, valid only during the call).
    func take(row: UnsafePointer<UInt8>, y: Int)
}

// The C callbacks: plain functions (they capture nothing), their context the sink that
// `receive` keeps alive for the whole decode.
private let rowSinkBegin: tb_begin_callback = { context, width, height, channels in
    Unmanaged<RowSink>.fromOpaque(context!).takeUnretainedValue().begin(
        width: Int(width), height: Int(height), channels: Int(channels))
}

private let rowSinkRow: tb_row_callback = { context, row, y in
    Unmanaged<RowSink>.fromOpaque(context!).takeUnretainedValue().add(row: row!, y: Int(y))
}
