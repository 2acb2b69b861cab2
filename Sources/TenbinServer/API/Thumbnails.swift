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
    }

    private let cache: LRUCache<Key, EncodedImage>
    private let pipeline: ImagePipeline
    private let codec: ImageCodec
    // Productions in flight, by thumbnail; read and written under this lock.
    private let inFlight = Locked<[Key: Task<EncodedImage, any Error>]>([:])

    /// Thumbnails decoded through `pipeline`, encoded at `quality`, cached up to `cacheBytes`.
    init(pipeline: ImagePipeline, cacheBytes: Int, quality: Int = 70) {
        self.pipeline = pipeline
        self.cache = LRUCache(costLimit: cacheBytes, countLimit: 100_000)
        self.codec = ImageCodec(encoding: EncodingOptions(jpegQuality: quality))
    }

    /// The cached thumbnail, counting a hit or a miss.
    func cached(_ key: Key) -> EncodedImage? {
        cache.value(forKey: key)
    }

    /// The cache's counters.
    var statistics: CacheStatistics { cache.statistics }

    /// Produces (or joins the production of) a thumbnail.
    func thumbnail(_ key: Key) async throws -> EncodedImage {
        let task = inFlight.withLock { inFlight in
            if let task = inFlight[key] { return task }
            let task = Task { [pipeline, codec, cache] in
                let request = ImageRequest(key.digest, size: .thumbnail(width: key.width, height: key.width * 8))
                let pixels = try await pipeline.image(for: request)
                let encoded = try codec.encode(pixels, source: "thumbnail of \(key.digest.hex.prefix(12))")
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
