import CImageCodec

/// What an image's header says, read without decoding pixels.
package struct ImageHeader: Sendable, Hashable {
    /// The format recognised from the first bytes.
    package let format: UploadFormat
    /// Width and height as stored in the file (before orientation).
    /// Stored width in pixels.
    package let width: Int
    /// Stored height in pixels.
    package let height: Int
    /// The EXIF orientation (a JPEG's APP1, a PNG's eXIf chunk before its pixels).
    package let orientation: ExifOrientation
}

/// A re-encoded image, ready to be stored.
package struct EncodedImage: Sendable, Hashable {
    /// The bytes to store.
    package let bytes: [UInt8]
    /// JPEG, or PNG for images with real transparency.
    package let format: ImageFormat
    /// Width in pixels, upright.
    package let width: Int
    /// Height in pixels, upright.
    package let height: Int
}

/// The upload pipeline: sniff → header probe and limits → decode (JPEG shrink-on-load) →
/// orient → resize → re-encode. Everything happens in memory; nothing is written.
///
/// The codec is a value whose only shared state is a count of the decodes running
/// (``ShrinkThreadUse``), so any number of tasks may use it at once.
package struct ImageCodec: Sendable {
    /// What uploads may be.
    package var limits: ImageLimits
    /// How accepted uploads are stored.
    package var encoding: EncodingOptions
    /// Decode JPEGs with libjpeg's smooth ("fancy") chroma upsampling even when the pixels
    /// are shrunk afterwards (slower). Off by default: the shrink averages the difference
    /// away; the benchmark uses this as its quality reference.
    package var exactDecoding = false
    /// When a decode's rows are shrunk (and encoded, for an upright JPEG) on a thread of their
    /// own beside the decoder.
    package var shrinkThread = ShrinkThreadUse.whenACoreIsIdle

    /// When a decode hands its rows to a thread of their own that shrinks them (and, for an
    /// upright JPEG being re-encoded, encodes and hashes them) while the decoder goes on: the
    /// same pixels and bytes either way, in about the decoder's time alone.
    package enum ShrinkThreadUse: Sendable {
        /// While fewer decodes run in this process than it has cores (asked again at every band
        /// of rows): a photo imported alone uses a second core, and many at once (a post's two
        /// photos on two cores, a busy server, an import with a job per core) add no thread
        /// that would only wait for a core.
        case whenACoreIsIdle
        case always
        case never
    }

    /// Decodes running in this process now (``ShrinkThreadUse/whenACoreIsIdle``).
    private static let decodesRunning = Locked(0)
    /// The machine's cores, read once (reading them is a file read).
    private static let cores = Machine.activeCores

    /// A codec with the given limits and output options.
    package init(limits: ImageLimits = ImageLimits(), encoding: EncodingOptions = EncodingOptions()) {
        self.limits = limits
        self.encoding = encoding
    }

    /// Reads the file at `path`, refusing it before reading when it is over the size limit.
    package func readUpload(at path: String) throws -> [UInt8] {
        switch FileBytes.read(path, limit: limits.maxFileBytes) {
        case .success(let bytes): return bytes
        case .failure(let error) where error.code == 27:  // EFBIG
            throw ImageError(source: path, stage: .limits, reason: "is larger than the limit of \(ByteCount(limits.maxFileBytes))")
        case .failure(let error):
            throw ImageError(
                source: path, stage: .read, reason: "cannot be read: \(SystemError.message(for: error.code))",
                kind: SystemError.kind(for: error.code) == .notFound ? .notFound : .invalidInput)
        }
    }

    /// Recognises the format and reads the header, checking it against the limits.
    package func probe(_ bytes: [UInt8], source: String) throws -> ImageHeader {
        let kind = ImageSniffer.kind(of: bytes)
        guard case .supported(let format) = kind else {
            throw ImageError(source: source, stage: .sniff, reason: ImageSniffer.refusal(for: kind)!)  // non-nil for every unsupported kind
        }
        if bytes.count > limits.maxFileBytes {
            throw ImageError(
                source: source, stage: .limits, format: format, reason: "is larger than the limit of \(ByteCount(limits.maxFileBytes))")
        }
        var error = [CChar](repeating: 0, count: Int(TB_ERROR_CAPACITY))
        let header: ImageHeader
        switch format {
        case .jpeg:
            var info = tb_jpeg_header()
            var exif = [UInt8](repeating: 0, count: 65536)
            let status = tb_jpeg_read_header(bytes, bytes.count, &info, &exif, exif.count, &error)
            guard status == 0 else { throw Self.failure(source, .header, format, error) }
            let orientation = ExifOrientation.parse(exif: Array(exif.prefix(info.exif_length)))
            header = ImageHeader(format: .jpeg, width: Int(info.width), height: Int(info.height), orientation: orientation)
        case .png:
            var info = tb_png_header()
            var exif = [UInt8](repeating: 0, count: 65536)
            var exifLength = 0
            let status = tb_png_read_header(bytes, bytes.count, &info, &exif, exif.count, &exifLength, &error)
            guard status == 0 else { throw Self.failure(source, .header, format, error) }
            let orientation = ExifOrientation.parse(exif: Array(exif.prefix(exifLength)))
            header = ImageHeader(format: .png, width: Int(info.width), height: Int(info.height), orientation: orientation)
        case .webp, .heic, .avif:
            var info = tb_still_header()
            let status =
                format == .webp
                ? tb_webp_read_header(bytes, bytes.count, &info, &error) : tb_heif_read_header(bytes, bytes.count, &info, &error)
            guard status == 0 else { throw Self.failure(source, .header, format, error) }
            if info.animated != 0 {
                throw ImageError(
                    source: source, stage: .limits, format: format, reason: "is an animated WebP; tenbin stores still images",
                    kind: .invalidInput)
            }
            // libheif gives the size with the file's rotation applied, and decodes upright.
            header = ImageHeader(format: format, width: Int(info.width), height: Int(info.height), orientation: .up)
        }
        if let violation = limits.violation(width: header.width, height: header.height) {
            throw ImageError(source: source, stage: .limits, format: format, reason: violation)
        }
        return header
    }

    /// Decodes an upload upright, scaled down to fit `maxEdge` on its longer side (nil:
    /// full size). JPEGs shrink on load, WebPs are scaled by libwebp, and every format's rows
    /// are resampled as they decode, so the full-size frame is never held in memory (except
    /// for interlaced PNGs and HEIC/AVIF, whose decoders finish whole frames).
    package func decode(_ bytes: [UInt8], source: String, maxEdge: Int?) throws -> PixelBuffer {
        let header = try probe(bytes, source: source)
        return try decode(bytes, header: header, source: source, maxEdge: maxEdge)
    }

    func decode(_ bytes: [UInt8], header: ImageHeader, source: String, maxEdge: Int?) throws -> PixelBuffer {
        var error = [CChar](repeating: 0, count: Int(TB_ERROR_CAPACITY))
        let (status, sink) = runDecoder(bytes, header: header, maxEdge: maxEdge, consumer: nil, error: &error)
        guard status == 0, let stored = sink.result else { throw Self.failure(source, .decode, header.format, error) }
        return stored.applying(header.orientation)
    }

    /// Runs the decoder for `header.format`, its rows shrunk to fit `maxEdge` as they come
    /// into a sink that keeps the image, or hands the rows to `consumer`; the decoder's status
    /// (0 when it succeeded, else the reason is in `error`) and the sink.
    private func runDecoder(
        _ bytes: [UInt8], header: ImageHeader, maxEdge: Int?, consumer: ShrunkRowConsumer?, error: inout [CChar]
    ) -> (Int32, RowSink) {
        let target = Resampler.fitting(width: header.width, height: header.height, maxEdge: maxEdge ?? Int.max)
        Self.decodesRunning.withLock { $0 += 1 }
        defer { Self.decodesRunning.withLock { $0 -= 1 } }
        let beside: () -> Bool
        switch shrinkThread {
        // Asked again at every band: a post's first photo starts with a thread, and gives it
        // up once its second photo decodes on the other core.
        case .whenACoreIsIdle: beside = { Self.decodesRunning.withLock { $0 } < Self.cores }
        case .always: beside = { true }
        case .never: beside = { false }
        }
        let status: Int32
        let sink: RowSink
        switch header.format {
        case .jpeg:
            let scale = Self.jpegScale(width: header.width, height: header.height, atLeast: target)
            // Plain chroma upsampling only where the shrink that follows (by 1.25x or more)
            // averages its difference away (measured in `make bench SECTIONS=reencode`).
            let decodedLongest = (max(header.width, header.height) * scale + 7) / 8
            let fast = !exactDecoding && decodedLongest * 4 >= max(target.width, target.height) * 5
            sink = RowSink(.size(width: target.width, height: target.height), consumer: consumer, beside: beside)
            status = sink.receive { context, begin, row in
                tb_jpeg_decode_rows(bytes, bytes.count, Int32(scale), fast ? 1 : 0, context, begin, row, &error)
            }
        case .png:
            sink = RowSink(.size(width: target.width, height: target.height), consumer: consumer, beside: beside)
            status = sink.receive { context, begin, row in tb_png_decode_rows(bytes, bytes.count, context, begin, row, &error) }
        case .webp:
            // libwebp scales while it decodes, so only the target-sized frame is held.
            sink = RowSink(.size(width: target.width, height: target.height), consumer: consumer, beside: beside)
            status = sink.receive { context, begin, row in
                tb_webp_decode_rows(bytes, bytes.count, Int32(target.width), Int32(target.height), context, begin, row, &error)
            }
        case .heic, .avif:
            // libheif decodes the whole frame; its rows stream into the resampler from there.
            sink = RowSink(.maxEdge(maxEdge), consumer: consumer, beside: beside)
            status = sink.receive { context, begin, row in tb_heif_decode_rows(bytes, bytes.count, context, begin, row, &error) }
        }
        return (status, sink)
    }

    /// Validates and re-encodes an upload for storage: oriented, scaled to fit
    /// `encoding.maxEdge`, JPEG at `encoding.jpegQuality` unless it has real transparency
    /// (then PNG), with no metadata. The same input always gives the same bytes.
    package func reencode(_ bytes: [UInt8], source: String) throws -> EncodedImage {
        try reencode(bytes, source: source, hashing: false).image
    }

    /// ``reencode(_:source:)``, and with `hashing` the perceptual hash of the pixels it
    /// decoded (upright, scaled to fit `encoding.maxEdge`): what a post stores and matches
    /// against the blocklist, computed on the pixels already in memory.
    package func reencode(_ bytes: [UInt8], source: String, hashing: Bool) throws -> (image: EncodedImage, hash: PerceptualHash?) {
        let header = try probe(bytes, source: source)
        // An upright JPEG (what most cameras and phones write) is stored as a JPEG, so its
        // shrunk rows can go straight to the encoder and the hash: no frame is held, not even
        // the stored size's 9 MB, whose fresh pages cost a post about a tenth of its CPU.
        if header.format == .jpeg && header.orientation == .up {
            return try reencodeStreaming(bytes, header: header, source: source, hashing: hashing)
        }
        let pixels = try decode(bytes, header: header, source: source, maxEdge: encoding.maxEdge)
        return (try encode(pixels, source: source), hashing ? PerceptualHash(of: pixels) : nil)
    }

    /// ``reencode(_:source:hashing:)`` for an upright JPEG, its rows encoded as they decode:
    /// the same bytes and hash as decoding the whole image first.
    private func reencodeStreaming(
        _ bytes: [UInt8], header: ImageHeader, source: String, hashing: Bool
    ) throws -> (image: EncodedImage, hash: PerceptualHash?) {
        let encoder = StreamingJPEGEncoder(quality: encoding.jpegQuality, hashing: hashing)
        var error = [CChar](repeating: 0, count: Int(TB_ERROR_CAPACITY))
        let (status, _) = runDecoder(bytes, header: header, maxEdge: encoding.maxEdge, consumer: encoder, error: &error)
        // An encoder that failed to start stopped the decode: its reason is the one to give.
        if encoder.failed { throw Self.failure(source, .encode, .jpeg, encoder.error) }
        guard status == 0, let size = encoder.size else { throw Self.failure(source, .decode, header.format, error) }
        guard let encoded = encoder.finish() else { throw Self.failure(source, .encode, .jpeg, encoder.error) }
        return (EncodedImage(bytes: encoded, format: .jpeg, width: size.width, height: size.height), encoder.hash)
    }

    /// The perceptual hash of an image's bytes as a post would compute it (decoded upright,
    /// scaled to fit `encoding.maxEdge`); nil for a picture too plain to hash.
    package func perceptualHash(_ bytes: [UInt8], source: String) throws -> PerceptualHash? {
        PerceptualHash(of: try decode(bytes, source: source, maxEdge: encoding.maxEdge))
    }

    /// Encodes pixels as tenbin stores them: PNG when any pixel is transparent, else JPEG.
    package func encode(_ pixels: PixelBuffer, source: String) throws -> EncodedImage {
        try encode(pixels, as: pixels.hasTransparency ? .png : .jpeg, source: source)
    }

    /// Encodes pixels in `format` (JPEG at `encoding.jpegQuality`, without alpha; PNG keeps
    /// it): ``encode(_:source:)``'s choice made by the caller, for tests and benchmarks
    /// making copies of a picture in either format.
    package func encode(_ pixels: PixelBuffer, as format: ImageFormat, source: String) throws -> EncodedImage {
        let opaque = format == .png ? pixels : pixels.droppingAlpha()
        var error = [CChar](repeating: 0, count: Int(TB_ERROR_CAPACITY))
        var output = tb_buffer()
        let status = opaque.pixels.withUnsafeBufferPointer { buffer in
            switch format {
            case .jpeg:
                tb_jpeg_encode(
                    buffer.baseAddress, Int32(opaque.width), Int32(opaque.height), Int32(opaque.channels), Int32(encoding.jpegQuality),
                    &output, &error)
            case .png:
                tb_png_encode(buffer.baseAddress, Int32(opaque.width), Int32(opaque.height), Int32(opaque.channels), &output, &error)
            }
        }
        guard status == 0, let start = output.bytes else { throw Self.failure(source, .encode, UploadFormat(format), error) }
        defer { tb_free(start) }
        let bytes = Array(UnsafeBufferPointer(start: start, count: output.length))
        return EncodedImage(bytes: bytes, format: format, width: opaque.width, height: opaque.height)
    }

    /// Encodes pixels as a lossy WebP at `quality` (transparency kept): what a browser that
    /// takes `image/webp` gets for a thumbnail, a third or so smaller than the JPEG. Never
    /// stored: a poster's images are JPEG or PNG.
    package static func webp(_ pixels: PixelBuffer, quality: Int, source: String) throws -> [UInt8] {
        let input = pixels.channels == 1 ? pixels.expandingGray() : pixels
        var error = [CChar](repeating: 0, count: Int(TB_ERROR_CAPACITY))
        var output = tb_buffer()
        let status = input.pixels.withUnsafeBufferPointer { buffer in
            tb_webp_encode(
                buffer.baseAddress, Int32(input.width), Int32(input.height), Int32(input.channels), Int32(quality), &output, &error)
        }
        guard status == 0, let start = output.bytes else { throw failure(source, .encode, .webp, error) }
        defer { tb_free(start) }
        return Array(UnsafeBufferPointer(start: start, count: output.length))
    }

    /// The largest libjpeg shrink (scale_num over 8: 1, 2, 4 or 8) whose output still covers
    /// `target`, so the final resample only ever scales down.
    package static func jpegScale(width: Int, height: Int, atLeast target: (width: Int, height: Int)) -> Int {
        for numerator in [1, 2, 4] {
            let scaledWidth = (width * numerator + 7) / 8
            let scaledHeight = (height * numerator + 7) / 8
            if scaledWidth >= target.width && scaledHeight >= target.height { return numerator }
        }
        return 8
    }

    private static func failure(_ source: String, _ stage: ImageError.Stage, _ format: UploadFormat, _ error: [CChar]) -> ImageError {
        // One line: libheif's messages may end in a newline.
        var reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .split(whereSeparator: \.isNewline).joined(separator: " ")
        if reason.isEmpty { reason = "unknown error" }
        return ImageError(source: source, stage: stage, format: format, reason: reason)
    }
}

/// A byte count printed for people: "50 MiB", "1.5 KiB", "312 bytes".
struct ByteCount: CustomStringConvertible {
    let value: Int

    init(_ value: Int) {
        self.value = value
    }

    var description: String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        guard value >= 1024 else { return "\(value) bytes" }
        var scaled = Double(value) / 1024
        var unit = 0
        while scaled >= 1024 && unit < units.count - 1 {
            scaled /= 1024
            unit += 1
        }
        let text = scaled == scaled.rounded() ? "\(Int(scaled))" : ImageLimits.oneDecimal(scaled)
        return "\(text) \(units[unit])"
    }
}
