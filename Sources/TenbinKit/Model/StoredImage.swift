/// An image as stored: its blob's digest and what re-encoding produced.
public struct StoredImage: Sendable, Hashable {
    /// Lowercase hex SHA-256 of the stored bytes; the blob's name.
    public let digest: Digest
    /// The stored encoding.
    public let format: ImageFormat
    /// Stored width in pixels.
    public let width: Int
    /// Stored height in pixels.
    public let height: Int
    /// Size of the stored bytes.
    public let bytes: Int

    /// Creates a stored-image description.
    public init(digest: Digest, format: ImageFormat, width: Int, height: Int, bytes: Int) {
        self.digest = digest
        self.format = format
        self.width = width
        self.height = height
        self.bytes = bytes
    }
}

/// The image encodings tenbin accepts and stores.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg
    case png
}
