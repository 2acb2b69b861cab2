#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The system's own words for an errno value.
package enum SystemError {
    package static func message(for code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    /// The kind of failure an errno value stands for: a missing file is `missing` (not found,
    /// unless the file should have been there); a refusal by the system (no space, no
    /// permission, a read-only file system, too many open files) means the store or file
    /// cannot be used now; anything else is internal.
    static func kind(for code: Int32, missing: ErrorKind = .notFound) -> ErrorKind {
        switch code {
        case ENOENT, ENOTDIR: missing
        case ENOSPC, EDQUOT, EFBIG, EROFS, EACCES, EPERM, EMFILE, ENFILE, EAGAIN, EBUSY, ENOMEM: .unavailable
        default: .internal
        }
    }
}

/// An errno value as a Swift error.
struct SystemErrno: KindedError {
    let code: Int32

    init(_ code: Int32) {
        self.code = code
    }

    var kind: ErrorKind { SystemError.kind(for: code) }

    var description: String { SystemError.message(for: code) }
}
