import CImageCodec

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
    private(set) var resampler: StreamingResampler?

    /// A sink keeping the shrunk image (`consumer` nil) or handing each shrunk row to
    /// `consumer` as it is finished, so not even the shrunk image is held.
    init(_ target: Target, consumer: ShrunkRowConsumer? = nil) {
        self.target = target
        self.consumer = consumer
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
        resampler = StreamingResampler(
            width: width, channels: channels, sourceHeight: height, targetWidth: size.width, targetHeight: size.height,
            deliver: deliver)
        return 0
    }

    fileprivate func add(row: UnsafePointer<UInt8>, y: Int) {
        resampler?.add(row: row, y: y)
    }

    /// Runs `decode` with this sink as the context of the two C callbacks it must pass on,
    /// and returns the decoder's status.
    func receive(
        _ decode: (UnsafeMutableRawPointer, tb_begin_callback, tb_row_callback) -> Int32
    ) -> Int32 {
        withExtendedLifetime(self) {
            decode(Unmanaged.passUnretained(self).toOpaque(), rowSinkBegin, rowSinkRow)
        }
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
