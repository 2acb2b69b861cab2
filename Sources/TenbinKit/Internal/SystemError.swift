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
}

/// An errno value as a Swift error.
struct SystemErrno: Error {
    let code: Int32

    init(_ code: Int32) {
        self.code = code
    }
}
