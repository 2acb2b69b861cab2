/// An entry of the image blocklist: a picture no post may bring back. A post is refused when
/// one of its images' digests (the upload's or the stored re-encoding's) is the entry's, or
/// when its perceptual hash is within ``ImageBlocklist/defaultDistance`` bits of the entry's.
public struct BlockedImage: Sendable, Hashable {
    /// The entry's id, never reused.
    public var id: Int64
    /// The SHA-256 of the blocked bytes (a stored blob's, or a file's added by hand).
    public var digest: Digest
    /// The picture's perceptual hash; nil for a picture too plain to hash, which only its
    /// exact digest blocks.
    public var perceptualHash: PerceptualHash?
    /// Where the entry came from, for moderators ("poster #12, image 1", a file name).
    public var note: String
    /// When it was added.
    public var createdAt: Timestamp

    /// An entry as a store holds it.
    public init(id: Int64, digest: Digest, perceptualHash: PerceptualHash?, note: String, createdAt: Timestamp) {
        self.id = id
        self.digest = digest
        self.perceptualHash = perceptualHash
        self.note = note
        self.createdAt = createdAt
    }
}

/// A blocklist entry about to be stored (``StoreWriting/insertBlockedImage(_:createdAt:)``).
public struct NewBlockedImage: Sendable, Hashable {
    /// The SHA-256 of the blocked bytes.
    public var digest: Digest
    /// The picture's perceptual hash, if it has one.
    public var perceptualHash: PerceptualHash?
    /// Where the entry came from.
    public var note: String

    /// An entry to store.
    public init(digest: Digest, perceptualHash: PerceptualHash?, note: String) {
        self.digest = digest
        self.perceptualHash = perceptualHash
        self.note = note
    }
}
