import CFileSync

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file-system calls a blob store makes to write a blob, one method each, so that a
/// test can record their order (a process kill cannot show a missing flush: the page cache
/// survives the process) and make any of them fail.
///
/// Each method returns 0 or the errno that stopped it.
protocol BlobFileSystem: Sendable {
    /// Creates a folder; one that exists already is not an error.
    func makeFolder(_ path: String) -> Int32
    /// Creates `path`, which must not exist, holding `bytes`, and closes it; with `sync`, the
    /// bytes are flushed to the disk (fsync) before it is closed.
    func writeNewFile(_ path: String, bytes: [UInt8], sync: Bool) -> Int32
    /// Renames `from` to `to` in the same folder, replacing `to`.
    func renameFile(_ from: String, to: String) -> Int32
    /// Makes the entries of a folder (a rename into it) durable: fsync of the folder.
    func syncFolder(_ path: String) -> Int32
    /// Makes everything written on the file system holding `path` durable: file contents,
    /// renames and folders, in one call (syncfs).
    func syncFileSystem(containing path: String) -> Int32
    /// Removes a file; a missing one is not an error.
    func removeFile(_ path: String) -> Int32
    /// Whether a file exists.
    func exists(_ path: String) -> Bool
}

/// The real file system.
struct LocalBlobFileSystem: BlobFileSystem {
    func makeFolder(_ path: String) -> Int32 {
        mkdir(path, 0o755) == 0 || errno == EEXIST ? 0 : errno
    }

    func writeNewFile(_ path: String, bytes: [UInt8], sync: Bool) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return errno }
        var failure = FileDescriptor.writeAll(bytes, to: fd)
        if failure == 0 && sync && fsync(fd) != 0 { failure = errno }
        // close reports delayed write errors (NFS, quotas): it counts as part of the write.
        if close(fd) != 0 && failure == 0 { failure = errno }
        return failure
    }

    func renameFile(_ from: String, to: String) -> Int32 {
        rename(from, to) == 0 ? 0 : errno
    }

    func syncFolder(_ path: String) -> Int32 {
        syncing(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) { fsync($0) }
    }

    func syncFileSystem(containing path: String) -> Int32 {
        syncing(path, O_RDONLY | O_CLOEXEC) { tb_syncfs($0) }
    }

    func removeFile(_ path: String) -> Int32 {
        unlink(path) == 0 || errno == ENOENT ? 0 : errno
    }

    func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Opens `path` read-only, runs a sync call on it and closes it.
    private func syncing(_ path: String, _ flags: Int32, _ call: (Int32) -> Int32) -> Int32 {
        let fd = open(path, flags)
        guard fd >= 0 else { return errno }
        defer { _ = close(fd) }  // read-only descriptor: close cannot lose data
        return call(fd) == 0 ? 0 : errno
    }
}
