extension ImageCodec {
    /// Decodes a stored image upright at `size`: for a thumbnail, JPEG shrinks on load to the
    /// smallest libjpeg scale still covering the box, then the pixels are resampled to fit it.
    package func decode(_ bytes: [UInt8], size: ImageSize, source: String) throws -> PixelBuffer {
        guard case .thumbnail = size else { return try decode(bytes, source: source, maxEdge: nil) }
        let header = try probe(bytes, source: source)
        let upright = header.orientation.swapsSides ? (header.height, header.width) : (header.width, header.height)
        let target = size.fitting(width: upright.0, height: upright.1)
        // Shrink-on-load by the longer edge is the same whichever way the image is turned.
        let pixels = try decode(bytes, header: header, source: source, maxEdge: max(target.width, target.height))
        let fitted = size.fitting(width: pixels.width, height: pixels.height)
        return Resampler.resize(pixels, width: fitted.width, height: fitted.height)
    }
}
