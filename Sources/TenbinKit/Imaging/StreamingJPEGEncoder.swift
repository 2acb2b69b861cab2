import CImageCodec

/// Encodes a JPEG from an image's shrunk rows as its decode makes them, and averages them for
/// its perceptual hash on the way, so a photo re-encoded this way is never held whole, not even
/// at its stored size (``ImageCodec/reencode(_:source:hashing:)`` for upright JPEGs). The
/// bytes are those ``ImageCodec/encode(_:source:)`` gives for the same pixels: both feed one
/// libjpeg encoder (`tb_jpeg_writer`), this one a row at a time.
///
/// Not Sendable: one decode on one thread owns it.
final class StreamingJPEGEncoder: ShrunkRowConsumer {
    private let quality: Int
    private let hashing: Bool
    /// The C encoder, owned here and freed in `deinit`; nil until `begin` (or when it failed).
    private var writer: OpaquePointer?
    /// The shrunk image's size, once `begin` was called.
    private(set) var size: (width: Int, height: Int)?
    private var luma: LumaGrid?
    /// libjpeg's message, NUL-terminated, once something failed.
    private(set) var error = [CChar](repeating: 0, count: Int(TB_ERROR_CAPACITY))
    /// Whether the encoder failed (then `error` says why and later rows are dropped).
    private(set) var failed = false

    /// An encoder at `quality` that also averages the rows for a perceptual hash when `hashing`.
    init(quality: Int, hashing: Bool) {
        self.quality = quality
        self.hashing = hashing
    }

    deinit {
        tb_jpeg_writer_free(writer)
    }

    func begin(width: Int, height: Int, channels: Int) -> Bool {
        writer = tb_jpeg_writer_start(Int32(width), Int32(height), Int32(channels), Int32(quality), &error)
        guard writer != nil else {
            failed = true
            return false
        }
        size = (width, height)
        if hashing { luma = LumaGrid(width: width, height: height, channels: channels) }
        return true
    }

    func take(row: UnsafePointer<UInt8>, y: Int) {
        luma?.add(row: row, y: y)
        // A failed encoder (out of memory) cannot stop the decode from here: the rows left
        // are dropped and `finish` reports the failure.
        guard !failed, let writer else { return }
        if tb_jpeg_writer_rows(writer, row, 1, &error) != 0 { failed = true }
    }

    /// The encoded bytes once every row was taken, or nil when encoding failed (`error`).
    func finish() -> [UInt8]? {
        guard !failed, let writer else { return nil }
        var output = tb_buffer()
        guard tb_jpeg_writer_finish(writer, &output, &error) == 0, let start = output.bytes else {
            failed = true
            return nil
        }
        defer { tb_free(start) }
        return Array(UnsafeBufferPointer(start: start, count: output.length))
    }

    /// The perceptual hash of the rows taken (nil when not hashing, or for a plain picture).
    var hash: PerceptualHash? {
        luma.flatMap { PerceptualHash(luma: $0) }
    }
}
