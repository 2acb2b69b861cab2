import TenbinKit

#if canImport(Glibc)
    import Glibc
#endif

/// The file `tenbin serve --log-file PATH` writes its log to, reopened by name on SIGHUP so a
/// log rotator can rename it away and have the server start a new one (logrotate's
/// `postrotate` sends the signal).
package final class LogFile: Sendable {
    /// The path as given.
    package let path: String
    // The open descriptor; swapped under this lock by `reopen`, so a write goes wholly to the
    // old file or wholly to the new one.
    private let descriptor: Locked<Int32>

    /// The log file cannot be opened.
    package struct OpenError: Error, CustomStringConvertible, KindedError {
        /// The path.
        package let path: String
        /// The system's reason.
        package let reason: String
        package var description: String { "cannot open the log file \(path): \(reason)" }
        package var kind: ErrorKind { .unavailable }
    }

    /// Opens (creating it, mode 0640) `path` for appending.
    package init(path: String) throws(OpenError) {
        self.path = path
        descriptor = Locked(try Self.open(path))
    }

    deinit {
        _ = close(descriptor.withLock { $0 })  // nothing more is written; a failed close loses nothing
    }

    private static func open(_ path: String) throws(OpenError) -> Int32 {
        let opened = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o640)
        guard opened >= 0 else { throw OpenError(path: path, reason: String(cString: strerror(errno))) }
        return opened
    }

    /// Appends `text` (a failed write only loses log lines).
    package func write(_ text: String) {
        descriptor.withLock { _ = FileDescriptor.writeAll(text, to: $0) }
    }

    /// Opens the path again and writes to the new file from now on; on failure the old one
    /// stays in use and the error says why.
    package func reopen() throws(OpenError) {
        let fresh = try Self.open(path)
        let old = descriptor.withLock { descriptor in
            defer { descriptor = fresh }
            return descriptor
        }
        _ = close(old)  // the old file was renamed or removed; closing it loses nothing
    }
}
