/// An image as stored: its blob's digest and what re-encoding produced.
package struct StoredImage: Sendable, Hashable {
    /// Lowercase hex SHA-256 of the stored bytes; the blob's name.
    package let digest: Digest
    /// The stored encoding.
    package let format: ImageFormat
    /// Stored width in pixels.
    package let width: Int
    /// Stored height in pixels.
    package let height: Int
    /// Size of the stored bytes.
    package let bytes: Int

    /// Creates a stored-image description.
    package init(digest: Digest, format: ImageFormat, width: Int, height: Int, bytes: Int) {
        self.digest = digest
        self.format = format
        self.width = width
        self.height = height
        self.bytes = bytes
    }
}

/// The image encodings tenbin accepts and stores.
package enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg
    case png
}
