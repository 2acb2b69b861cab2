import Glibc

/// Where blobs live: content-addressed files, one per distinct stored image.
public protocol BlobStoring: Sendable {
    /// Stores `bytes` whole and durably under their SHA-256 and returns it; storing the same
    /// bytes again changes nothing.
    func write(_ bytes: [UInt8]) throws -> Digest
    /// The first half of a batched write: writes `bytes` to a temporary file, neither durable
    /// nor under the blob's name yet (nothing, when the blob is stored already).
    func stage(_ bytes: [UInt8]) throws -> StagedBlob
    /// The second half: makes staged blobs durable and moves them to their names, so rows may
    /// then reference them. One flush of the file system per call, not one per blob.
    func publish(_ staged: [StagedBlob]) throws
    /// Removes the temporary files of staged blobs that were not published.
    func discard(_ staged: [StagedBlob])
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

/// A blob written by `stage`, waiting for `publish`.
public struct StagedBlob: Sendable, Hashable {
    /// The blob's SHA-256.
    public let digest: Digest
    /// The temporary file holding its bytes; nil when the blob was already stored.
    let temporary: String?
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
/// `write` puts a blob in a temporary file in its final folder, fsyncs it, renames it into
/// place and fsyncs the folder: a reader never sees part of a blob, a name never points at
/// bytes a power loss could lose, and two writers of the same content cannot conflict, since
/// both rename identical bytes to the same name. `stage` and `publish` do the same for a
/// batch with two flushes of the file system in all (syncfs: contents, then renames).
public struct BlobStore: BlobStoring {
    /// The folder holding the two-hex-digit subfolders.
    public let root: String
    /// The calls that write blob files (recorded by tests).
    let files: any BlobFileSystem

    /// A store rooted at `root`; nothing is created until the first write.
    public init(root: String) {
        self.init(root: root, files: LocalBlobFileSystem())
    }

    init(root: String, files: any BlobFileSystem) {
        self.root = root
        self.files = files
    }

    public func path(for digest: Digest) -> String {
        "\(root)/\(digest.hex.prefix(2))/\(digest.hex)"
    }

    static let temporaryPrefix = ".tmp-"

    public func write(_ bytes: [UInt8]) throws -> Digest {
        let digest = Digest(of: bytes)
        if contains(digest) { return digest }
        let temporary = try writeTemporary(bytes, digest: digest, sync: true)
        try moveIntoPlace(temporary, digest: digest)
        try check(files.syncFolder(folder(of: digest)), digest: digest)
        return digest
    }

    public func stage(_ bytes: [UInt8]) throws -> StagedBlob {
        let digest = Digest(of: bytes)
        if contains(digest) { return StagedBlob(digest: digest, temporary: nil) }
        return StagedBlob(digest: digest, temporary: try writeTemporary(bytes, digest: digest, sync: false))
    }

    public func publish(_ staged: [StagedBlob]) throws {
        var pending: [Digest: String] = [:]
        for blob in staged {
            guard let temporary = blob.temporary, pending[blob.digest] != temporary else { continue }
            if pending[blob.digest] == nil && !contains(blob.digest) {
                pending[blob.digest] = temporary
            } else {
                // Published by an earlier batch, written meanwhile by another writer, or the
                // same bytes staged twice: one copy is enough.
                _ = files.removeFile(temporary)  // best effort: gc removes what is left
            }
        }
        guard let any = pending.first else { return }
        // Contents first: a name must never point at bytes that a power loss could lose.
        try check(files.syncFileSystem(containing: root), digest: any.key)
        for (digest, temporary) in pending.sorted(by: { $0.key.hex < $1.key.hex }) {
            try moveIntoPlace(temporary, digest: digest)
        }
        // Then the renames, before any row may reference the names.
        try check(files.syncFileSystem(containing: root), digest: any.key)
    }

    public func discard(_ staged: [StagedBlob]) {
        for temporary in staged.compactMap(\.temporary) {
            _ = files.removeFile(temporary)  // best effort: what is left is only a temporary file gc removes
        }
    }

    private func folder(of digest: Digest) -> String {
        "\(root)/\(digest.hex.prefix(2))"
    }

    /// Writes `bytes` to a new temporary file in the blob's folder and returns its path.
    private func writeTemporary(_ bytes: [UInt8], digest: Digest, sync: Bool) throws -> String {
        let folder = folder(of: digest)
        for path in [root, folder] {
            let failure = files.makeFolder(path)
            guard failure == 0 else { throw BlobError(.create, path: path, errno: failure) }
        }
        let temporary = "\(folder)/\(Self.temporaryPrefix)\(digest.hex.prefix(16))-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let failure = files.writeNewFile(temporary, bytes: bytes, sync: sync)
        guard failure == 0 else {
            _ = files.removeFile(temporary)  // best effort: what is left is only a temporary file gc removes
            throw BlobError(.write, path: path(for: digest), digest: digest, errno: failure)
        }
        return temporary
    }

    /// Renames a written temporary file to the blob's name (replacing identical bytes, when
    /// another writer got there first).
    private func moveIntoPlace(_ temporary: String, digest: Digest) throws {
        let failure = files.renameFile(temporary, to: path(for: digest))
        guard failure == 0 else {
            _ = files.removeFile(temporary)  // best effort, as above
            throw BlobError(.write, path: path(for: digest), digest: digest, errno: failure)
        }
    }

    /// Errors name the blob's final path: the temporary name means nothing to a user.
    private func check(_ failure: Int32, digest: Digest) throws {
        guard failure == 0 else { throw BlobError(.write, path: path(for: digest), digest: digest, errno: failure) }
    }

    public func read(_ digest: Digest) throws -> [UInt8] {
        let file = path(for: digest)
        return try FileBytes.read(file, limit: Int.max).mapError { BlobError(.read, path: file, digest: digest, errno: $0.code) }.get()
    }

    public func contains(_ digest: Digest) -> Bool {
        files.exists(path(for: digest))
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
