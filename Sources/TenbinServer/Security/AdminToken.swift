#if canImport(Glibc)
    import Glibc
#endif

/// The admin token, read from a file so it never appears in a process list.
package enum AdminToken {
    /// The shortest token accepted: a guessable token would open edits and deletes to anyone.
    package static let minimumLength = 16

    /// Reads the token in `path`: the file's text without surrounding white space.
    package static func read(path: String) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == ENOENT ? "no such file" : errno == EACCES ? "permission denied" : "error \(errno)"
            throw ServerError("cannot read the admin token file \(path): \(reason)")
        }
        defer { _ = close(descriptor) }  // read-only; nothing to lose
        var bytes = [UInt8](repeating: 0, count: 4097)
        var count = 0
        while count < bytes.count {
            // The buffer is 4097 bytes, never empty, so it has a base address.
            let got = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw ServerError("cannot read the admin token file \(path)") }
            if got == 0 { break }
            count += got
        }
        guard count < bytes.count else { throw ServerError("the admin token file \(path) is larger than 4 KiB") }
        guard let text = String(validating: bytes[..<count], as: UTF8.self) else {
            throw ServerError("the admin token file \(path) is not UTF-8 text")
        }
        let token = String(
            text.unicodeScalars.drop { $0.properties.isWhitespace }.reversed().drop { $0.properties.isWhitespace }.reversed().map(
                Character.init))
        guard token.count >= minimumLength else {
            throw ServerError("the admin token in \(path) is shorter than \(minimumLength) characters")
        }
        guard token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f }) else {
            throw ServerError("the admin token in \(path) must be printable ASCII without spaces")
        }
        return token
    }
}
