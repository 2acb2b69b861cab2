import Dispatch
import Glibc

/// Where blobs live: content-addressed files, one per distinct stored image.
public protocol BlobStoring: Sendable {
    /// Stores `bytes` whole and durably under their SHA-256 and returns it; storing the same
    /// bytes again changes nothing.
    func write(_ bytes: [UInt8]) throws -> Digest
    /// The first half of a batched write: writes `bytes` to a temporary file and starts
    /// flushing it in the background; it is not under the blob's name yet (nothing is
    /// written when the blob is stored already).
    func stage(_ bytes: [UInt8]) throws -> StagedBlob
    /// The second half: waits for the staged blobs' contents to be durable, moves them to
    /// their names and makes the names durable, so rows may then reference them. Flushes
    /// only these files and their folders (each folder once), never the whole file system.
    func publish(_ staged: [StagedBlob]) throws
    /// Removes the temporary files of staged blobs that were not published.
    func discard(_ staged: [StagedBlob])
    /// ``stage(_:)`` for a blob whose bytes are in `file` already, whole and durable (another
    /// store's blob): gives the file a temporary name here (a hard link) for ``publish(_:)``
    /// to move into place, without copying it. nil when this store cannot share the file (no
    /// such call, another file system, or one without hard links): the caller writes a copy.
    func stageLink(_ digest: Digest, from file: String) throws -> StagedBlob?
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
    /// Throws unless the blob folder exists and takes a write: a small probe file is written,
    /// flushed and removed. With `creating`, a missing blob folder inside an existing folder
    /// (a store's `blobs/` before its first image) is made first.
    func checkWritable(creating: Bool) throws
}

/// A blob written by `stage`, waiting for `publish`.
public struct StagedBlob: Sendable, Hashable {
    /// The blob's SHA-256.
    public let digest: Digest
    /// The temporary file holding its bytes; nil when the blob was already stored.
    let temporary: String?
    /// The flush of the temporary file, under way on the store's flusher.
    let flush: PendingFlush?
    /// The folders whose entries must be durable before a row may reference the blob: its
    /// own (for the rename), and the parent of each folder created for it.
    let folders: [String]

    init(digest: Digest, temporary: String? = nil, flush: PendingFlush? = nil, folders: [String] = []) {
        self.digest = digest
        self.temporary = temporary
        self.flush = flush
        self.folders = folders
    }

    public static func == (lhs: StagedBlob, rhs: StagedBlob) -> Bool {
        lhs.digest == rhs.digest && lhs.temporary == rhs.temporary
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(digest)
        hasher.combine(temporary)
    }
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
/// A blob goes to a temporary file in its final folder, its contents are flushed
/// (fdatasync), it is renamed into place and its folder is flushed (fsync): a reader never
/// sees part of a blob, a name never points at bytes a power loss could lose, and two writers
/// of the same content cannot conflict, since both rename identical bytes to the same name.
/// `write` does this for one blob, in line. `stage` and `publish` do it for a batch: each
/// staged file is flushed on the store's flusher threads as soon as it is written (while the
/// writer goes on), and `publish` waits for those flushes, renames, then flushes each
/// distinct folder once. Only tenbin's own files are flushed, so a batch never waits for
/// what other programs wrote to the same disk (`syncfs` would).
public struct BlobStore: BlobStoring {
    /// The folder holding the two-hex-digit subfolders.
    public let root: String
    /// The calls that write blob files (recorded by tests).
    let files: any BlobFileSystem
    /// Flushes staged files in the background.
    let flusher: BlobFlusher

    /// A store rooted at `root`; nothing is created until the first write.
    public init(root: String) {
        self.init(root: root, files: LocalBlobFileSystem())
    }

    /// The blob store of the store folder `folder`: its `blobs/` (the one place that name is
    /// made, for every backend: SQLite's folder holds its database beside it, PostgreSQL's
    /// only the blobs).
    public init(storeFolder folder: String) {
        self.init(root: Self.root(ofStoreFolder: folder))
    }

    /// `FOLDER/blobs`.
    static func root(ofStoreFolder folder: String) -> String {
        "\(folder)/blobs"
    }

    init(root: String, files: any BlobFileSystem) {
        self.root = root
        self.files = files
        self.flusher = BlobFlusher()
    }

    public func path(for digest: Digest) -> String {
        "\(root)/\(digest.hex.prefix(2))/\(digest.hex)"
    }

    static let temporaryPrefix = ".tmp-"

    public func checkWritable(creating: Bool) throws {
        if !files.exists(root) {
            let parent = root.lastIndex(of: "/").map { String(root[..<$0]) } ?? "."
            guard creating, files.exists(parent.isEmpty ? "/" : parent) else {
                throw BlobError(.create, path: root, detail: "the blob folder does not exist")
            }
            let failure = files.makeFolder(root)
            guard failure == 0 || failure == EEXIST else { throw BlobError(.create, path: root, errno: failure) }
        }
        // A temporary file's name: a probe left by a crash is removed by gc like any other.
        let probe = "\(root)/\(Self.temporaryPrefix)ready-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let (descriptor, failure) = files.createFile(probe, bytes: [0x0A])
        guard failure == 0 else { throw BlobError(.write, path: root, errno: failure) }
        let flushed = files.closeFile(probe, descriptor: descriptor, flush: true)
        let removed = files.removeFile(probe)
        guard flushed == 0 else { throw BlobError(.flush, path: root, errno: flushed) }
        guard removed == 0 else { throw BlobError(.remove, path: probe, errno: removed) }
    }

    public func write(_ bytes: [UInt8]) throws -> Digest {
        let digest = Digest(of: bytes)
        if contains(digest) { return digest }
        let written = try writeTemporary(bytes, digest: digest)
        let failure = files.closeFile(written.temporary, descriptor: written.descriptor, flush: true)
        guard failure == 0 else {
            _ = files.removeFile(written.temporary)  // best effort: what is left is only a temporary file gc removes
            throw BlobError(.flush, path: path(for: digest), digest: digest, errno: failure)
        }
        try moveIntoPlace(written.temporary, digest: digest)
        try syncFolders([StagedBlob(digest: digest, folders: written.folders)])
        return digest
    }

    public func stage(_ bytes: [UInt8]) throws -> StagedBlob {
        let digest = Digest(of: bytes)
        // Found on disk: perhaps just renamed there by another writer that has not flushed its
        // folder yet, so publish flushes that folder too before a row names the blob.
        if contains(digest) { return StagedBlob(digest: digest, folders: [folder(of: digest)]) }
        let written = try writeTemporary(bytes, digest: digest)
        let flush = flusher.flush(written.temporary, descriptor: written.descriptor, on: files)
        return StagedBlob(digest: digest, temporary: written.temporary, flush: flush, folders: written.folders)
    }

    public func publish(_ staged: [StagedBlob]) throws {
        var pending: [Digest: StagedBlob] = [:]
        var found: [StagedBlob] = []
        for blob in staged {
            guard let temporary = blob.temporary else {
                found.append(blob)
                continue
            }
            guard pending[blob.digest]?.temporary != temporary else { continue }
            if pending[blob.digest] == nil && !contains(blob.digest) {
                pending[blob.digest] = blob
            } else {
                // Published by an earlier batch, written meanwhile by another writer, or the
                // same bytes staged twice: one copy is enough. Another writer's name may not be
                // flushed yet (our file is still there, unrenamed): flush its folder too.
                if pending[blob.digest] == nil && files.exists(temporary) { found.append(blob) }
                blob.flush?.cancel()
                _ = files.removeFile(temporary)  // best effort: gc removes what is left
            }
        }
        let ordered = pending.values.sorted { $0.digest < $1.digest }
        // Contents first: a name must never point at bytes that a power loss could lose.
        for blob in ordered {
            let failure = blob.flush?.wait() ?? 0
            guard failure == 0 else { throw BlobError(.flush, path: path(for: blob.digest), digest: blob.digest, errno: failure) }
        }
        for blob in ordered {
            // Every pending blob has a temporary file (checked above).
            try moveIntoPlace(blob.temporary!, digest: blob.digest)
        }
        // Then the names, before any row may reference them.
        try syncFolders(ordered + found)
    }

    public func discard(_ staged: [StagedBlob]) {
        for blob in staged {
            guard let temporary = blob.temporary else { continue }
            blob.flush?.cancel()
            _ = files.removeFile(temporary)  // best effort: what is left is only a temporary file gc removes
        }
    }

    private func folder(of digest: Digest) -> String {
        "\(root)/\(digest.hex.prefix(2))"
    }

    /// Writes `bytes` to a new temporary file in the blob's folder, left open for its flush;
    /// returns it with the folders whose entries must be flushed before a row names the blob.
    private func writeTemporary(_ bytes: [UInt8], digest: Digest) throws -> (temporary: String, descriptor: Int32, folders: [String]) {
        let (temporary, folders) = try temporaryName(for: digest)
        let written = files.createFile(temporary, bytes: bytes)
        guard written.failure == 0 else {
            _ = files.removeFile(temporary)  // best effort: what is left is only a temporary file gc removes
            throw BlobError(.write, path: path(for: digest), digest: digest, errno: written.failure)
        }
        return (temporary, written.descriptor, folders)
    }

    /// A new temporary name in the blob's folder (made, with the root, when missing), and the
    /// folders whose entries must be flushed before a row names the blob.
    private func temporaryName(for digest: Digest) throws -> (temporary: String, folders: [String]) {
        let folder = folder(of: digest)
        var folders = [folder]
        for path in [root, folder] {
            let failure = files.makeFolder(path)
            if failure == EEXIST { continue }
            guard failure == 0 else { throw BlobError(.create, path: path, errno: failure) }
            // A folder made here is an entry in its parent, which must be durable too.
            folders.append(Self.parent(of: path))
        }
        let temporary = "\(folder)/\(Self.temporaryPrefix)\(digest.hex.prefix(16))-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        return (temporary, folders)
    }

    public func stageLink(_ digest: Digest, from file: String) throws -> StagedBlob? {
        if contains(digest) { return StagedBlob(digest: digest, folders: [folder(of: digest)]) }
        let (temporary, folders) = try temporaryName(for: digest)
        let failure = files.linkFile(file, to: temporary)
        switch failure {
        case 0:
            // The file's bytes were made durable when its own store published it; only the
            // new name needs flushing, which publish does.
            return StagedBlob(digest: digest, temporary: temporary, folders: folders)
        case EXDEV, EPERM, EMLINK, EOPNOTSUPP, ENOSYS:
            // Another file system, or one without hard links (FAT), or a file at its link limit.
            return nil
        default:
            throw BlobError(.write, path: path(for: digest), digest: digest, errno: failure)
        }
    }

    /// The folder holding `path`.
    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
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

    /// Flushes each folder the blobs need once; a failure names a blob in that folder (the
    /// folder's name means little to a user).
    private func syncFolders(_ blobs: [StagedBlob]) throws {
        var owner: [String: Digest] = [:]
        for blob in blobs {
            for folder in blob.folders where owner[folder] == nil { owner[folder] = blob.digest }
        }
        let folders = owner.sorted(by: { $0.key < $1.key })
        // At once, as the files' flushes are: the file system commits concurrent flushes
        // together, where one after another each waited for its own commit (a post's three
        // folders, measured under another process's disk load: 54 + 28 + 3 ms in a row).
        let failures = Locked([Int32](repeating: 0, count: folders.count))
        DispatchQueue.concurrentPerform(iterations: folders.count) { index in
            let failure = files.syncFolder(folders[index].key)
            failures.withLock { $0[index] = failure }
        }
        // concurrentPerform returns after every folder's flush; the first failure in order.
        for ((_, digest), failure) in zip(folders, failures.withLock { $0 }) where failure != 0 {
            throw BlobError(.flush, path: path(for: digest), digest: digest, errno: failure)
        }
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
    package static func entries(of folder: String) throws -> [String]? {
        guard let directory = opendir(folder) else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw BlobError(.list, path: folder, errno: errno)
        }
        defer { _ = closedir(directory) }  // closing a read-only stream cannot lose data
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = entry.name
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
