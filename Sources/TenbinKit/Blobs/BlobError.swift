/// A failure reading or writing the blob store, naming the blob and its file.
public struct BlobError: KindedError, Sendable {
    /// What was being done.
    public enum Operation: String, Sendable {
        case create = "create the blob folder"
        case write = "write"
        case flush = "flush to the disk"
        case read = "read"
        case remove = "remove"
        case list = "list"
    }

    /// What was being done.
    public let operation: Operation
    /// The file or folder concerned.
    public let path: String
    /// The blob concerned, when one is.
    public let digest: Digest?
    /// The system's errno, when the system refused.
    public let errno: Int32?
    /// Extra detail, when there is no errno.
    public let detail: String?

    init(_ operation: Operation, path: String, digest: Digest? = nil, errno: Int32? = nil, detail: String? = nil) {
        self.operation = operation
        self.path = path
        self.digest = digest
        self.errno = errno
        self.detail = detail
    }

    /// A refusal by the system (no space, no permission, read-only) is `unavailable`; a blob
    /// file that is missing or wrong where the store says it is means the store is damaged
    /// (`internal`).
    public var kind: ErrorKind {
        errno.map { SystemError.kind(for: $0, missing: .internal) } ?? .internal
    }

    public var description: String {
        var reason = detail ?? errno.map(SystemError.message(for:)) ?? "unknown error"
        switch errno {
        case 28: reason += " (the disk is full)"
        case 27: reason += " (the file-size limit, ulimit -f, was reached)"
        case 30: reason += " (the store is on a read-only file system)"
        case 13: reason += " (no permission to write in the store)"
        default: break
        }
        return "\(path): cannot \(operation.rawValue): \(reason)"
    }
}
