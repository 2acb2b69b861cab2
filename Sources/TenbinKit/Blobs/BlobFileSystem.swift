#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file-system calls a blob store makes to write a blob, one method each, so that a
/// test can record their order (a process kill cannot show a missing flush: the page cache
/// survives the process) and make any of them fail.
///
/// Each method returns 0 or the errno that stopped it. Every flush names only tenbin's own
/// files and folders: nothing here waits for what other programs wrote to the same disk.
protocol BlobFileSystem: Sendable {
    /// Creates a folder: 0 when this call created it, `EEXIST` when it was there already.
    func makeFolder(_ path: String) -> Int32
    /// Creates `path`, which must not exist, writes `bytes` to it and leaves it open for
    /// `closeFile`. On failure the file is closed already (and may be left behind).
    func createFile(_ path: String, bytes: [UInt8]) -> (descriptor: Int32, failure: Int32)
    /// Closes a file `createFile` left open; with `flush`, first makes its contents durable
    /// (fdatasync: the bytes, and the size and block map needed to read them back).
    func closeFile(_ path: String, descriptor: Int32, flush: Bool) -> Int32
    /// Renames `from` to `to` in the same folder, replacing `to`.
    func renameFile(_ from: String, to: String) -> Int32
    /// Makes the entries of a folder (a rename or a folder created in it) durable: fsync of
    /// the folder.
    func syncFolder(_ path: String) -> Int32
    /// Removes a file; a missing one is not an error.
    func removeFile(_ path: String) -> Int32
    /// Whether a file exists.
    func exists(_ path: String) -> Bool
    /// Makes `to`, which must not exist, a second name of the file `from` (a hard link).
    func linkFile(_ from: String, to: String) -> Int32
}

extension BlobFileSystem {
    func linkFile(_ from: String, to: String) -> Int32 {
        link(from, to) == 0 ? 0 : errno
    }
}

/// The real file system.
struct LocalBlobFileSystem: BlobFileSystem {
    func makeFolder(_ path: String) -> Int32 {
        mkdir(path, 0o755) == 0 ? 0 : errno
    }

    func createFile(_ path: String, bytes: [UInt8]) -> (descriptor: Int32, failure: Int32) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return (-1, errno) }
        let failure = FileDescriptor.writeAll(bytes, to: fd)
        guard failure == 0 else {
            _ = close(fd)  // the write failed already: that is the error to report
            return (-1, failure)
        }
        return (fd, 0)
    }

    func closeFile(_ path: String, descriptor: Int32, flush: Bool) -> Int32 {
        var failure: Int32 = 0
        if flush && fdatasync(descriptor) != 0 { failure = errno }
        // close reports delayed write errors (NFS, quotas): it counts as part of the write.
        if close(descriptor) != 0 && failure == 0 { failure = errno }
        return failure
    }

    func renameFile(_ from: String, to: String) -> Int32 {
        rename(from, to) == 0 ? 0 : errno
    }

    func syncFolder(_ path: String) -> Int32 {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return errno }
        defer { _ = close(fd) }  // read-only descriptor: close cannot lose data
        return fsync(fd) == 0 ? 0 : errno
    }

    func removeFile(_ path: String) -> Int32 {
        unlink(path) == 0 || errno == ENOENT ? 0 : errno
    }

    func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }
}
