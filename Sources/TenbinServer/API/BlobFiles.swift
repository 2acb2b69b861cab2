import TenbinKit

/// Where each blob's file is and what format it holds, remembered after the store first
/// confirmed that a poster uses the blob, so serving an image costs an `open` and no store
/// query. A digest names its bytes for good, so what is remembered never goes stale; whether
/// the blob still exists is the file's business: a blob that a delete or `tenbin gc` removed
/// is gone from disk, its `open` fails, and it is forgotten.
final class BlobFiles: Sendable {
    /// A blob's stored format and the path of its file.
    struct File: Sendable {
        var format: ImageFormat
        var path: String
    }

    /// The most digests remembered; past it, the memory starts over.
    let capacity: Int
    private let files = Locked<[Digest: File]>([:])

    init(capacity: Int = 65_536) {
        self.capacity = capacity
    }

    /// The file of `digest` if it is remembered.
    func known(_ digest: Digest) -> File? {
        files.withLock { $0[digest] }
    }

    /// The file of `digest`: remembered, else looked up with `lookup` (which throws not-found
    /// for a blob no poster uses, and blocks: call it on the board executor) and remembered.
    func file(_ digest: Digest, lookup: () throws -> (image: StoredImage, path: String)) throws -> File {
        if let known = known(digest) { return known }
        let (image, path) = try lookup()
        let file = File(format: image.format, path: path)
        files.withLock { files in
            if files.count >= capacity { files.removeAll(keepingCapacity: true) }
            files[digest] = file
        }
        return file
    }

    /// Forgets `digest` (its file is gone).
    func forget(_ digest: Digest) {
        _ = files.withLock { $0.removeValue(forKey: digest) }
    }
}
