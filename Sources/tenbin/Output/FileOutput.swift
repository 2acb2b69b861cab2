#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writing a user's output file whole or not at all.
enum FileOutput {
    /// Writes `bytes` to a temporary file beside `path`, then renames it over `path`.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        let temporary = "\(path).tenbin-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CommandFailure("\(path): cannot write: \(String(cString: strerror(errno)))") }
        var failure = FileDescriptor.writeAll(bytes, to: fd)
        if failure == 0 && close(fd) != 0 { failure = errno } else if failure != 0 { _ = close(fd) }  // already failing
        if failure == 0 && rename(temporary, path) != 0 { failure = errno }
        if failure != 0 {
            _ = unlink(temporary)  // best effort: the real error is reported below
            throw CommandFailure("\(path): cannot write: \(String(cString: strerror(failure)))")
        }
    }
}
