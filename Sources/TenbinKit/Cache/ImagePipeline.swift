/// Loads decoded images for front ends: through a memory cache, sharing one load between
/// callers asking for the same image at the same time, and loading many at once in a task
/// group bounded to the machine's cores.
///
/// Reading and decoding run in tasks of their own on the global executor, never on a
/// caller's actor. The pipeline holds no actor itself: its table of loads in flight sits
/// behind a `Locked` (a pthread mutex).
public final class ImagePipeline: Sendable {
    /// What a pipeline is built from; tests swap the parts.
    public struct Configuration: Sendable {
        /// Where decoded images are kept.
        public var cache: any ImageCaching
        /// The most images `images(for:)` loads at once.
        public var maxConcurrentLoads: Int
        /// Reads a blob's stored bytes.
        public var read: @Sendable (Digest) async throws -> [UInt8]
        /// Decodes stored bytes at the request's size.
        public var decode: @Sendable ([UInt8], ImageRequest) throws -> PixelBuffer

        /// Parts as given.
        public init(
            cache: any ImageCaching, maxConcurrentLoads: Int,
            read: @escaping @Sendable (Digest) async throws -> [UInt8],
            decode: @escaping @Sendable ([UInt8], ImageRequest) throws -> PixelBuffer
        ) {
            self.cache = cache
            self.maxConcurrentLoads = max(1, maxConcurrentLoads)
            self.read = read
            self.decode = decode
        }

        /// Blobs read from `blobs` and decoded by `codec`, cached in an LRU cache with
        /// `limits`, as many loads at once as the machine has cores.
        package init(
            blobs: any BlobStoring, codec: ImageCodec = ImageCodec(), limits: CacheLimits = .default,
            maxConcurrentLoads: Int? = nil
        ) {
            self.init(
                cache: LRUCache<ImageRequest, PixelBuffer>(limits: limits),
                maxConcurrentLoads: maxConcurrentLoads ?? Self.defaultConcurrentLoads,
                read: { digest in try blobs.read(digest) },
                decode: { bytes, request in try codec.decode(bytes, size: request.size, source: "\(request)") })
        }

        /// One load per core.
        public static var defaultConcurrentLoads: Int { Machine.activeCores }
    }

    public let configuration: Configuration
    private let loads = Locked<[ImageRequest: ImageLoad]>([:])

    /// A pipeline over the given parts.
    public init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    /// The cache images are kept in.
    public var cache: any ImageCaching { configuration.cache }

    /// Loads in flight now.
    package var loadsInFlight: Int { loads.withLock { $0.count } }

    /// How many callers wait for the load of `request` now (for tests).
    func callers(waitingFor request: ImageRequest) -> Int {
        loads.withLock { $0[request] }?.interestedCallers ?? 0
    }

    /// One image: from the cache, else read, decoded and cached. A request made while the
    /// same image is loading waits for that load instead of starting another. Cancelling the
    /// caller returns `CancellationError` at once; the load itself stops when every caller
    /// waiting for it has been cancelled.
    public func image(for request: ImageRequest) async throws -> PixelBuffer {
        if let cached = cache.image(for: request) { return cached }
        return try await load(request)
    }

    /// Many images at once, in a task group running at most `maxConcurrentLoads` loads at a
    /// time. Results come in request order; one image failing does not fail the others.
    /// Cached images are answered before any task starts. Cancelling the caller fails every
    /// image not loaded yet with `CancellationError`.
    public func images(for requests: [ImageRequest]) async -> [Result<PixelBuffer, any Error>] {
        var results = [Result<PixelBuffer, any Error>?](repeating: nil, count: requests.count)
        var missing: [Int] = []
        for (index, request) in requests.enumerated() {
            if let cached = cache.image(for: request) { results[index] = .success(cached) } else { missing.append(index) }
        }
        if !missing.isEmpty {
            await withTaskGroup(of: (Int, Result<PixelBuffer, any Error>).self) { group in
                var waiting = missing.makeIterator()
                for _ in 0..<configuration.maxConcurrentLoads {
                    guard let index = waiting.next() else { break }
                    group.addTask { (index, await self.result(for: requests[index])) }
                }
                while let (index, result) = await group.next() {
                    results[index] = result
                    // A cancelled batch starts nothing more; what is left fails below.
                    if !Task.isCancelled, let index = waiting.next() {
                        group.addTask { (index, await self.result(for: requests[index])) }
                    }
                }
            }
        }
        return results.map { $0 ?? .failure(CancellationError()) }
    }

    private func result(for request: ImageRequest) async -> Result<PixelBuffer, any Error> {
        do {
            return .success(try await load(request))
        } catch {
            return .failure(error)
        }
    }

    /// Joins the load of `request` in flight, or starts one.
    private func load(_ request: ImageRequest) async throws -> PixelBuffer {
        try Task.checkCancellation()
        let joined: (ImageLoad, Int)? = loads.withLock { loads in
            if let load = loads[request], let ticket = load.join() { return (load, ticket) }
            // A load that finished between the caller's cache miss and now has cached its
            // image before leaving this table: look again rather than load it twice.
            if cache.image(for: request) != nil { return nil }
            let load = ImageLoad(request)
            loads[request] = load
            load.start({ try await self.fetch(request) }, finished: { result in self.finish(load, result) })
            // A fresh load has no callers, so it cannot have been abandoned.
            return (load, load.join()!)
        }
        guard let (load, ticket) = joined else {
            if let cached = cache.image(for: request) { return cached }
            return try await self.load(request)  // evicted in the meantime: load it after all
        }
        return try await load.wait(ticket) { self.forget(load) }
    }

    /// The work of one load: read, then decode, stopping early once nobody wants it.
    private func fetch(_ request: ImageRequest) async throws -> PixelBuffer {
        try Task.checkCancellation()
        let bytes = try await configuration.read(request.digest)
        try Task.checkCancellation()
        return try configuration.decode(bytes, request)
    }

    /// Caches a successful load, then forgets it: a request arriving after this finds the
    /// image in the cache.
    private func finish(_ load: ImageLoad, _ result: Result<PixelBuffer, any Error>) {
        if case .success(let image) = result { cache.store(image, for: load.request) }
        forget(load)
    }

    private func forget(_ load: ImageLoad) {
        loads.withLock { loads in
            if loads[load.request] === load { loads[load.request] = nil }
        }
    }
}
