extension Board {
    /// An image pipeline over this board's blobs, decoding with its codec, with a cache of
    /// `limits` (by default a share of physical memory, capped) and as many loads at once as
    /// the machine has cores unless told otherwise.
    public func imagePipeline(cacheLimits limits: CacheLimits = .default, maxConcurrentLoads: Int? = nil) -> ImagePipeline {
        ImagePipeline(
            ImagePipeline.Configuration(blobs: blobs, codec: codec, limits: limits, maxConcurrentLoads: maxConcurrentLoads))
    }
}

extension Poster {
    /// Requests for both images at `size`, first then second.
    public func imageRequests(size: ImageSize) -> [ImageRequest] {
        images.map { ImageRequest($0.digest, size: size) }
    }
}
