// libFuzzer target: arbitrary bytes through the whole upload path — sniff, header probe
// and limits, decode (JPEG streaming and PNG), orientation, resampling, re-encoding.
// Compiled with TenbinKit's sources by scripts/fuzz.sh, which names this function libFuzzer's
// entry point; any crash, hang or sanitizer report is a bug. Errors thrown for bad input are
// the expected outcome.

@_cdecl("tenbin_fuzz_image")
public func fuzzImage(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // Small limits keep each run fast; the code paths are the same as with the defaults.
    let codec = ImageCodec(
        limits: ImageLimits(maxFileBytes: 4 << 20, maxPixels: 4_000_000, maxSide: 4096),
        encoding: EncodingOptions(maxEdge: 256, jpegQuality: 50))
    if let encoded = try? codec.reencode(bytes, source: "fuzz") {
        // What tenbin stores must itself be a valid image that re-encodes to the same size.
        let again = try? codec.reencode(encoded.bytes, source: "stored")
        precondition(again?.width == encoded.width && again?.height == encoded.height, "a stored image must decode again")
    }
    _ = ExifOrientation.parse(exif: bytes)
    return 0
}
