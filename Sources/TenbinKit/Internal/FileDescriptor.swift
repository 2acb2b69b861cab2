import Glibc

/// The one place tenbin writes raw bytes to a file descriptor: blob files, and the command
/// line's standard output, standard error and terminal.
package enum FileDescriptor {
    /// Writes all of `bytes` to `fd`, going on after short writes and interrupted calls.
    /// Returns 0, or the errno that stopped it (EPIPE when the reader left).
    package static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Int32 {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                // offset < count, so the buffer is not empty and has a base address.
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if written == 0 { return EIO }  // a regular file or pipe never writes nothing
                offset += written
            }
            return 0
        }
    }

    /// Reads `fd` to its end, or until more than `limit` bytes came (then `limit` + 1 bytes
    /// are returned, so the caller can say the input is too large without reading it all).
    /// Returns the bytes, or the errno that stopped it.
    package static func readAll(_ fd: Int32, limit: Int) -> Result<[UInt8], SystemCallError> {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count <= limit {
            let wanted = min(chunk.count, limit + 1 - bytes.count)
            let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, wanted) }  // chunk is not empty
            if got < 0 {
                if errno == EINTR { continue }
                return .failure(SystemCallError(code: errno))
            }
            if got == 0 { break }
            bytes += chunk[..<got]
        }
        return .success(bytes)
    }

    /// An errno from a read.
    package struct SystemCallError: Error {
        /// The errno value.
        package let code: Int32
    }

    /// `writeAll` for text, as UTF-8.
    package static func writeAll(_ text: String, to fd: Int32) -> Int32 {
        writeAll(Array(text.utf8), to: fd)
    }
}
