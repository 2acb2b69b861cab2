/// The image blocklist as a post checks it: an upload is refused when its digest (the
/// uploaded bytes' or their re-encoding's) is an entry's, or when its perceptual hash is at
/// most ``distance`` bits from an entry's.
package struct ImageBlocklist: Sendable {
    /// The largest Hamming distance between perceptual hashes that still counts as the same
    /// picture. Measured by `make bench SECTIONS=blocklist` and documented in
    /// docs/moderation.md ("Blocked images"): at 10, every JPEG recompression (quality 30–90),
    /// resize (50–90 %), PNG and WebP copy of the sample pictures is caught, as are most
    /// 2–5 % crops, while no two of some thousands of distinct pictures come that close.
    package static let defaultDistance = 10

    /// The entries.
    package let entries: [BlockedImage]
    /// The distance within which hashes match.
    package let distance: Int

    /// The blocklist of `entries`, matching hashes within `distance` bits.
    package init(_ entries: [BlockedImage], distance: Int = ImageBlocklist.defaultDistance) {
        self.entries = entries
        self.distance = distance
    }

    /// The entry an image matches: one of `digests` exactly, else the nearest hash within
    /// ``distance``.
    package func match(digests: [Digest], hash: PerceptualHash?) -> BlockedImage? {
        if let exact = entries.first(where: { digests.contains($0.digest) }) { return exact }
        guard let hash else { return nil }
        var best: (entry: BlockedImage, distance: Int)?
        for entry in entries {
            guard let blocked = entry.perceptualHash else { continue }
            let apart = blocked.distance(to: hash)
            if apart <= distance && apart < (best?.distance ?? Int.max) { best = (entry, apart) }
        }
        return best?.entry
    }
}
