import TenbinKit

#if canImport(Glibc)
    import Glibc
#endif

/// Where each blob's file is and what format it holds, remembered after the store first
/// confirmed that a poster uses the blob, so serving an image costs an `open` and no store
/// query. A digest names its bytes for good, so what is remembered never goes stale; whether
/// the blob still exists is the file's business: a blob that a delete or `tenbin gc` removed
/// is gone from disk, its `open` fails, and it is forgotten.
///
/// The bytes of blobs up to ``largestKept`` are kept too, up to ``memoryBudget`` in all, as an
/// answer made once (``PreparedResponse``: head and bytes, queued as it is for every request):
/// an answer from memory lets libmicrohttpd send the head and the body in one call, where a
/// file costs a separate send of the head, then `sendfile` (measured in docs/benchmarks.md: 31
/// against 20 µs of server CPU a 75 KB blob). Whether the blob still exists stays the file's
/// business: each answer from memory first checks that the file is there (`access`).
final class BlobFiles: Sendable {
    /// A blob's stored format and the path of its file, and its answer once its bytes are kept.
    struct File: Sendable {
        var format: ImageFormat
        var path: String
        var kept: PreparedResponse? = nil

        /// Whether the file is still there (a delete or gc removes it). The path is lent as a
        /// C string: passed to `access` directly, Swift copied it into a new array each time.
        var exists: Bool { path.withCString { access($0, F_OK) == 0 } }
    }

    /// The most digests remembered; past it, the memory starts over.
    let capacity: Int
    /// The most bytes of blobs kept in memory; past it, the kept bytes start over.
    let memoryBudget: Int
    /// The largest blob whose bytes are kept (stored images are 2048 px JPEGs of 150–400 KB).
    let largestKept: Int
    private let files = Locked<(files: [Digest: File], keptBytes: Int)>(([:], 0))

    init(capacity: Int = 65_536, memoryBudget: Int = 32 << 20, largestKept: Int = 1 << 20) {
        self.capacity = capacity
        self.memoryBudget = memoryBudget
        self.largestKept = largestKept
    }

    /// The file of `digest` if it is remembered.
    func known(_ digest: Digest) -> File? {
        files.withLock { $0.files[digest] }
    }

    /// The file of `digest`: remembered, else looked up with `lookup` (which throws not-found
    /// for a blob no poster uses, and blocks: call it on the board executor) and remembered.
    func file(_ digest: Digest, lookup: () throws -> (image: StoredImage, path: String)) throws -> File {
        if let known = known(digest) { return known }
        let (image, path) = try lookup()
        let file = File(format: image.format, path: path)
        files.withLock { state in
            if state.files.count >= capacity { state = ([:], 0) }
            if state.files[digest] == nil { state.files[digest] = file }
        }
        return file
    }

    /// Whether a blob of `count` bytes would be kept in memory.
    func keeps(_ count: Int) -> Bool {
        count <= largestKept
    }

    /// Keeps the answer of `digest`'s file (known already), its bytes in memory; past the
    /// budget the kept answers start over, their files still remembered.
    func keep(_ digest: Digest, _ answer: PreparedResponse) {
        files.withLock { state in
            guard state.files[digest] != nil, state.files[digest]?.kept == nil else { return }
            if state.keptBytes + answer.bytes.count > memoryBudget {
                for key in state.files.keys { state.files[key]?.kept = nil }
                state.keptBytes = 0
            }
            state.files[digest]?.kept = answer
            state.keptBytes += answer.bytes.count
        }
    }

    /// Forgets `digest` (its file is gone).
    func forget(_ digest: Digest) {
        files.withLock { state in
            if let gone = state.files.removeValue(forKey: digest), let kept = gone.kept { state.keptBytes -= kept.bytes.count }
        }
    }
}
