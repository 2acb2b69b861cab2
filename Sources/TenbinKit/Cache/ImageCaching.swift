/// Where an image pipeline keeps decoded images between requests: the seam tests and other
/// front ends swap.
public protocol ImageCaching: Sendable {
    /// The cached pixels for `request`, or nil; counts a hit or a miss.
    func image(for request: ImageRequest) -> PixelBuffer?
    /// Caches pixels for `request` (the cache may decline, for instance when they are too big).
    func store(_ image: PixelBuffer, for request: ImageRequest)
    /// Drops everything cached.
    func removeAll()
    /// The counters and current size.
    var statistics: CacheStatistics { get }
}

extension LRUCache: ImageCaching where Key == ImageRequest, Value == PixelBuffer {
    /// An image cache with the given limits; an image costs its pixel bytes.
    package convenience init(limits: CacheLimits) {
        self.init(costLimit: limits.bytes, countLimit: limits.count)
    }

    package func image(for request: ImageRequest) -> PixelBuffer? {
        value(forKey: request)
    }

    package func store(_ image: PixelBuffer, for request: ImageRequest) {
        setValue(image, forKey: request, cost: image.byteCount)
    }
}

/// How much an image cache may hold: total pixel bytes and number of images.
public struct CacheLimits: Sendable, Hashable, CustomStringConvertible {
    /// The most pixel bytes held; one image over a tenth of this is not cached.
    public var bytes: Int
    /// The most images held.
    public var count: Int

    /// Limits as given.
    public init(bytes: Int, count: Int) {
        self.bytes = bytes
        self.count = count
    }

    /// The share of physical memory the cache may use by default.
    package static let memoryShare = 16
    /// The most bytes the default allows, however large the machine.
    package static let maximumDefaultBytes = 256 << 20
    /// The fewest bytes the default allows, however small the machine.
    package static let minimumDefaultBytes = 16 << 20
    /// The default count limit.
    package static let defaultCount = 2000

    /// A sixteenth of physical memory, between 16 MiB and 256 MiB, and 2,000 images.
    package static func scaled(toPhysicalMemory memory: Int) -> CacheLimits {
        let bytes = min(maximumDefaultBytes, max(minimumDefaultBytes, memory / memoryShare))
        return CacheLimits(bytes: bytes, count: defaultCount)
    }

    /// The default limits for this machine.
    public static var `default`: CacheLimits { scaled(toPhysicalMemory: Machine.physicalMemory) }

    public var description: String {
        "\(ByteCount(bytes)), \(count) images"
    }
}
