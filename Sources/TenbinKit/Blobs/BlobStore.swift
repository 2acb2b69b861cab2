import Glibc

/// Where blobs live: content-addressed files, one per distinct stored image.
public protocol BlobStoring: Sendable {
    /// Stores `bytes` whole under their SHA-256 and returns it; storing the same bytes
    /// again changes nothing.
    func write(_ bytes: [UInt8]) throws -> Digest
    /// The stored bytes of a blob.
    func read(_ digest: Digest) throws -> [UInt8]
    /// Whether a blob file exists.
    func contains(_ digest: Digest) -> Bool
    /// Deletes a blob file; a missing one is not an error.
    func remove(_ digest: Digest) throws
    /// Deletes a leftover temporary file listed by `inventory()`; a missing one is not an error.
    func removeTemporary(_ file: String) throws
    /// Every blob file present, and the leftover temporary files of interrupted writes.
    func inventory() throws -> BlobInventory
    /// The file a blob lives in.
    func path(for digest: Digest) -> String
}

/// What the blob folder holds.
public struct BlobInventory: Sendable {
    /// Blobs whose file names are valid digests.
    public var digests: [Digest] = []
    /// Temporary files (from writes that were interrupted, or that are under way now)
    /// with their age in seconds.
    public var temporaryFiles: [(path: String, age: Int)] = []
    /// Files that are neither blobs nor temporary files.
    public var strangers: [String] = []
}

/// A blob store on the local file system, at `ROOT/<2 hex>/<64 hex>`.
///
/// A blob is written to a temporary file in its final folder, fsynced, then renamed into
/// place, and the folder is fsynced: a reader never sees part of a blob, and two writers of
/// the same content cannot conflict, since both rename identical bytes to the same name.
public struct BlobStore: BlobStoring {
    /// The folder holding the two-hex-digit subfolders.
    public let root: String

    /// A store rooted at `root`; nothing is created until the first write.
    public init(root: String) {
        self.root = root
    }

    public func path(for digest: Digest) -> String {
        "\(root)/\(digest.hex.prefix(2))/\(digest.hex)"
    }

    static let temporaryPrefix = ".tmp-"

    public func write(_ bytes: [UInt8]) throws -> Digest {
        let digest = Digest(of: bytes)
        let final = path(for: digest)
        if contains(digest) { return digest }
        let folder = "\(root)/\(digest.hex.prefix(2))"
        try makeFolder(root)
        try makeFolder(folder)
        let temporary = "\(folder)/\(Self.temporaryPrefix)\(digest.hex.prefix(16))-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        // Errors name the blob's final path: the temporary name means nothing to a user.
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw BlobError(.write, path: final, digest: digest, errno: errno) }
        do {
            try Self.writeAll(bytes, to: fd, path: final, digest: digest)
            guard fsync(fd) == 0 else { throw BlobError(.write, path: final, digest: digest, errno: errno) }
            guard close(fd) == 0 else {
                throw BlobError(.write, path: final, digest: digest, errno: errno)
            }
        } catch {
            _ = close(fd)  // may already be closed; EBADF then is harmless
            _ = unlink(temporary)  // best effort: what is left is only a temporary file gc removes
            throw error
        }
        guard rename(temporary, final) == 0 else {
            let code = errno
            _ = unlink(temporary)  // best effort, as above
            throw BlobError(.write, path: final, digest: digest, errno: code)
        }
        try syncFolder(folder)
        return digest
    }

    private static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String, digest: Digest) throws {
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)  // count > 0, so base exists
                if written < 0 {
                    if errno == EINTR { continue }
                    throw BlobError(.write, path: path, digest: digest, errno: errno)
                }
                offset += written
            }
        }
    }

    private func makeFolder(_ folder: String) throws {
        if mkdir(folder, 0o755) != 0 && errno != EEXIST {
            throw BlobError(.create, path: folder, errno: errno)
        }
    }

    /// Makes a rename in `folder` durable.
    private func syncFolder(_ folder: String) throws {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw BlobError(.write, path: folder, errno: errno) }
        defer { _ = close(fd) }  // read-only descriptor: close cannot lose data
        guard fsync(fd) == 0 else { throw BlobError(.write, path: folder, errno: errno) }
    }

    public func read(_ digest: Digest) throws -> [UInt8] {
        let file = path(for: digest)
        return try FileBytes.read(file, limit: Int.max).mapError { BlobError(.read, path: file, digest: digest, errno: $0.code) }.get()
    }

    public func contains(_ digest: Digest) -> Bool {
        access(path(for: digest), F_OK) == 0
    }

    public func remove(_ digest: Digest) throws {
        let file = path(for: digest)
        if unlink(file) != 0 && errno != ENOENT {
            throw BlobError(.remove, path: file, digest: digest, errno: errno)
        }
    }

    public func removeTemporary(_ file: String) throws {
        if unlink(file) != 0 && errno != ENOENT {
            throw BlobError(.remove, path: file, errno: errno)
        }
    }

    public func inventory() throws -> BlobInventory {
        var inventory = BlobInventory()
        guard let folders = try Self.entries(of: root) else { return inventory }
        let now = time(nil)
        for folder in folders.sorted() {
            let folderPath = "\(root)/\(folder)"
            guard folder.utf8.count == 2, let files = try Self.entries(of: folderPath) else {
                inventory.strangers.append(folderPath)
                continue
            }
            for name in files.sorted() {
                let file = "\(folderPath)/\(name)"
                if let digest = Digest(hex: name), name.hasPrefix(folder) {
                    inventory.digests.append(digest)
                } else if name.hasPrefix(Self.temporaryPrefix) {
                    var info = stat()
                    let age = stat(file, &info) == 0 ? Int(now - info.st_mtim.tv_sec) : 0
                    inventory.temporaryFiles.append((file, age))
                } else {
                    inventory.strangers.append(file)
                }
            }
        }
        return inventory
    }

    /// The names in a folder, or nil when it is not a folder; throws on a missing root only
    /// when the failure is something other than absence.
    private static func entries(of folder: String) throws -> [String]? {
        guard let directory = opendir(folder) else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw BlobError(.list, path: folder, errno: errno)
        }
        defer { _ = closedir(directory) }  // closing a read-only stream cannot lose data
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)  // d_name is NUL-terminated
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
