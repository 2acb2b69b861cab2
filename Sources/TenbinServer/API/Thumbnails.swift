import TenbinKit

/// Thumbnails of stored images at a few widths, encoded once and kept as encoded bytes in an
/// LRU cache bounded by memory. Decoding goes through the board's image pipeline; requests for
/// the same thumbnail made while it is being produced wait for that one production.
final class Thumbnails: Sendable {
    /// The widths a client may ask for.
    static let widths = [160, 320, 640]

    struct Key: Hashable, Sendable {
        var digest: Digest
        var width: Int
        /// WebP (for a browser that takes it) rather than the image's own format.
        var webp = false
    }

    /// A thumbnail's bytes, their media type and its size in pixels.
    struct Encoded: Sendable, Hashable {
        var bytes: [UInt8]
        var mediaType: String
        var width: Int
        var height: Int
    }

    private let cache: LRUCache<Key, Encoded>
    private let pipeline: ImagePipeline
    private let codec: ImageCodec
    private let quality: Int
    // Productions in flight, by thumbnail; read and written under this lock.
    private let inFlight = Locked<[Key: Task<Encoded, any Error>]>([:])

    /// Thumbnails decoded through `pipeline`, encoded at `quality`, cached up to `cacheBytes`.
    init(pipeline: ImagePipeline, cacheBytes: Int, quality: Int = 70) {
        self.pipeline = pipeline
        self.cache = LRUCache(costLimit: cacheBytes, countLimit: 100_000)
        self.codec = ImageCodec(encoding: EncodingOptions(jpegQuality: quality))
        self.quality = quality
    }

    /// The cached thumbnail, counting a hit or a miss.
    func cached(_ key: Key) -> Encoded? {
        cache.value(forKey: key)
    }

    /// The cache's counters.
    var statistics: CacheStatistics { cache.statistics }

    /// Produces (or joins the production of) a thumbnail.
    func thumbnail(_ key: Key) async throws -> Encoded {
        let task = inFlight.withLock { inFlight in
            if let task = inFlight[key] { return task }
            let task = Task { [pipeline, codec, cache, quality] in
                let request = ImageRequest(key.digest, size: .thumbnail(width: key.width, height: key.width * 8))
                let pixels = try await pipeline.image(for: request)
                let source = "thumbnail of \(key.digest.hex.prefix(12))"
                let encoded: Encoded
                if key.webp {
                    encoded = Encoded(
                        bytes: try ImageCodec.webp(pixels, quality: quality, source: source), mediaType: "image/webp", width: pixels.width,
                        height: pixels.height)
                } else {
                    let image = try codec.encode(pixels, source: source)
                    encoded = Encoded(
                        bytes: image.bytes, mediaType: Application.mediaType(image.format), width: image.width, height: image.height)
                }
                cache.setValue(encoded, forKey: key, cost: encoded.bytes.count)
                return encoded
            }
            inFlight[key] = task
            return task
        }
        defer { _ = inFlight.withLock { $0.removeValue(forKey: key) } }  // the first caller out clears it; the value is cached
        return try await task.value
    }
}
