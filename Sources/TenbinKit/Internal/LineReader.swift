import Glibc

/// Reads a file line by line through a fixed buffer, so a file of any size takes the same
/// memory. The only owner of its descriptor.
///
/// Lines end at LF; a CR before the LF is dropped, and a UTF-8 byte-order mark at the start
/// of the file is skipped. The last line needs no LF.
final class LineReader {
    let path: String
    private let fd: Int32
    private var buffer: [UInt8]
    /// Valid bytes are `buffer[start..<end]`.
    private var start = 0
    private var end = 0
    private var atEnd = false
    private var atStart = true

    /// The longest line read, in bytes (16 MiB); a longer one fails with E2BIG.
    static let maximumLine = 16 << 20

    /// Opens `path`; fails with the errno when it cannot be read.
    init(path: String, bufferSize: Int = 1 << 20) throws(SystemErrno) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemErrno(errno) }
        self.fd = fd
        self.path = path
        self.buffer = [UInt8](repeating: 0, count: max(bufferSize, 4096))
    }

    deinit {
        _ = close(fd)  // read-only descriptor: close cannot lose data
    }

    /// Calls `body` with the next line's bytes (valid only during the call); nil at the end.
    func next<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T? {
        while true {
            if let newline = firstNewline() {
                let line = start..<newline
                start = newline + 1
                return try yield(line, body)
            }
            if atEnd {
                guard start < end else { return nil }
                let line = start..<end
                start = end
                return try yield(line, body)
            }
            try fill()
        }
    }

    private func firstNewline() -> Int? {
        buffer.withUnsafeBufferPointer { bytes in
            guard start < end, let base = bytes.baseAddress else { return nil }
            guard let found = memchr(base + start, 0x0A, end - start) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    private func yield<T>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
        var range = range
        if atStart {
            atStart = false
            if range.count >= 3 && buffer[range.lowerBound] == 0xEF && buffer[range.lowerBound + 1] == 0xBB
                && buffer[range.lowerBound + 2] == 0xBF
            {
                range = range.lowerBound + 3..<range.upperBound
            }
        }
        if let last = range.last, buffer[last] == 0x0D { range = range.lowerBound..<last }
        return try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// Moves the unread bytes to the front, grows the buffer when one line fills it, and reads more.
    private func fill() throws(SystemErrno) {
        if start > 0 {
            buffer.withUnsafeMutableBufferPointer { bytes in
                _ = memmove(bytes.baseAddress!, bytes.baseAddress! + start, end - start)  // returns its first argument
            }
            end -= start
            start = 0
        }
        if end == buffer.count {
            // One line fills the buffer: grow it, up to a bound a hostile file cannot pass.
            guard buffer.count < Self.maximumLine else { throw SystemErrno(E2BIG) }
            buffer += [UInt8](repeating: 0, count: buffer.count)
        }
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { Glibc.read(fd, $0.baseAddress! + end, $0.count - end) }  // non-empty
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemErrno(errno)
            }
            if count == 0 { atEnd = true }
            end += count
            return
        }
    }
}
