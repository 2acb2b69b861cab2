import Glibc

/// Reads whole files with plain system calls (no Foundation on the hot paths).
enum FileBytes {
    /// The file's bytes, or the errno that stopped reading. A file larger than `limit`
    /// fails with EFBIG before anything is read.
    static func read(_ path: String, limit: Int) -> Result<[UInt8], SystemErrno> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(SystemErrno(errno)) }
        defer { _ = close(fd) }  // read-only descriptor: close cannot lose data
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(SystemErrno(errno)) }
        if (info.st_mode & S_IFMT) == S_IFDIR { return .failure(SystemErrno(EISDIR)) }
        let size = Int(info.st_size)
        if size > limit { return .failure(SystemErrno(EFBIG)) }
        var bytes = [UInt8](repeating: 0, count: size)
        var offset = 0
        while offset < size {
            let count = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(fd, buffer.baseAddress! + offset, size - offset)  // size > 0 here, so base exists
            }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(SystemErrno(errno))
            }
            if count == 0 { break }  // the file shrank while being read
            offset += count
        }
        if offset < size { bytes.removeSubrange(offset...) }
        // A file that grew, or a pipe with no size, is read on to its end.
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }  // non-empty buffer
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(SystemErrno(errno))
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
            if bytes.count > limit { return .failure(SystemErrno(EFBIG)) }
        }
        return .success(bytes)
    }
}
