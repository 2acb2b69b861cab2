import CZlib

/// An endless gzip member for one live feed: each piece is compressed and flushed so the client
/// decodes it as soon as it arrives, and later pieces refer back to earlier ones (a vote's
/// `modified` event repeats most of what the snapshot and earlier events said about its poster).
///
/// The window is small on purpose: a server holds up to thousands of feeds, and zlib's default
/// state (a 32 KiB window, memLevel 8) costs 268 KB each. `windowBits` 11 and `memLevel` 2 cost
/// 16 KB and still send a `modified` event in 40–140 bytes instead of 530 (see
/// docs/benchmarks.md). Not thread-safe: its owner serialises the calls.
final class GzipStream {
    /// Bytes of history a piece may refer back to: 2^11.
    static let windowBits: Int32 = 11
    /// zlib's memLevel: the size of its match hash table and output buffer.
    static let memoryLevel: Int32 = 2

    // The zlib stream, owned by this object and freed in deinit.
    private let stream: OpaquePointer

    /// A new stream, or nil when zlib cannot allocate one (the feed is then sent uncompressed).
    init?() {
        guard let stream = tb_gzip_stream_open(Self.windowBits, Self.memoryLevel) else { return nil }
        self.stream = stream
    }

    deinit {
        tb_gzip_stream_close(stream)
    }

    /// The compressed form of `bytes`, flushed so that everything up to here can be decoded (the
    /// first piece starts with gzip's header). With `last`, the member ends with its trailer and
    /// nothing more may be written. Nil when zlib fails.
    func write(_ bytes: some Collection<UInt8>, last: Bool = false) -> [UInt8]? {
        let input = Array(bytes)
        // Room for a piece that does not shrink, its flush marker and the header or trailer;
        // the loop below takes more if zlib still needs it.
        var output = [UInt8](repeating: 0, count: tb_gzip_bound(input.count) + 16)
        var written = 0
        let ok = input.withUnsafeBufferPointer { input in
            var first = true
            while true {
                var full: Int32 = 0
                // The output is never empty (its first size is at least 16), so it has a base
                // address. No input (nil) continues the previous call's.
                let count = output.withUnsafeMutableBufferPointer { out in
                    tb_gzip_stream_write(
                        stream, first ? input.baseAddress : nil, first ? input.count : 0, last ? 1 : 0, out.baseAddress! + written,
                        out.count - written, &full)
                }
                first = false
                guard count >= 0 else { return false }
                written += count
                guard full != 0 else { return true }
                output.append(contentsOf: repeatElement(0, count: output.count))
            }
        }
        guard ok else { return nil }
        output.removeSubrange(written...)
        return output
    }
}
