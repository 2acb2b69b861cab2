import Glibc

/// Reads a file line by line through a bounded buffer, so a file of any size takes the same
/// memory. The only owner of its descriptor.
///
/// Lines end at LF; a CR before the LF is dropped, and a UTF-8 byte-order mark at the start
/// of the file is skipped. The last line needs no LF. A line longer than ``maximumLine`` is
/// read past to its end without being held, and reported as too long; the next line follows.
final class LineReader {
    let path: String
    /// The longest line read, in bytes (without its line end).
    let maximumLine: Int
    private let fd: Int32
    private var buffer: [UInt8]
    /// Valid bytes are `buffer[start..<end]`.
    private var start = 0
    private var end = 0
    private var atEnd = false
    private var atStart = true

    /// The most the buffer holds: the longest line, a byte-order mark before it, and a CRLF.
    private var largestBuffer: Int { maximumLine + 5 }

    /// The longest line read by default, in bytes (16 MiB).
    static let defaultMaximumLine = 16 << 20

    /// Opens `path`; fails with the errno when it cannot be read.
    init(path: String, bufferSize: Int = 1 << 20, maximumLine: Int = defaultMaximumLine) throws(SystemErrno) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemErrno(errno) }
        self.fd = fd
        self.path = path
        self.maximumLine = maximumLine
        self.buffer = [UInt8](repeating: 0, count: min(max(bufferSize, 4096), maximumLine + 5))  // see largestBuffer
    }

    deinit {
        _ = close(fd)  // read-only descriptor: close cannot lose data
    }

    /// Calls `body` with the next line's bytes (valid only during the call), or `tooLong` when
    /// that line is longer than ``maximumLine`` (it is then skipped); nil at the end.
    func next<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T, tooLong: () throws -> T) throws -> T? {
        while true {
            if let newline = firstNewline() {
                let line = start..<newline
                start = newline + 1
                return try yield(line, body, tooLong)
            }
            if atEnd {
                guard start < end else { return nil }
                let line = start..<end
                start = end
                return try yield(line, body, tooLong)
            }
            if start == 0 && end == buffer.count && buffer.count >= largestBuffer {
                // The buffer at its largest holds no line end: the line is too long.
                try skipLine()
                atStart = false
                return try tooLong()
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

    private func yield<T>(
        _ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws -> T, _ tooLong: () throws -> T
    ) throws -> T {
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
        if range.count > maximumLine { return try tooLong() }
        return try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// Moves the unread bytes to the front, grows the buffer when one line fills it (up to
    /// ``largestBuffer``, a bound a hostile file cannot pass), and reads more.
    private func fill() throws(SystemErrno) {
        if start > 0 {
            buffer.withUnsafeMutableBufferPointer { bytes in
                _ = memmove(bytes.baseAddress!, bytes.baseAddress! + start, end - start)  // returns its first argument
            }
            end -= start
            start = 0
        }
        if end == buffer.count {
            // `next` skips a line that fills the largest buffer instead of filling it further.
            precondition(buffer.count < largestBuffer, "a full buffer at its largest is skipped, not grown")
            buffer += [UInt8](repeating: 0, count: min(buffer.count, largestBuffer - buffer.count))
        }
        end += try read(into: end)
    }

    /// Reads past the end of the line that fills the buffer, a buffer at a time, keeping the
    /// bytes after its LF (none at the end of the file).
    private func skipLine() throws(SystemErrno) {
        repeat {
            start = 0
            end = try read(into: 0)
            if let newline = firstNewline() {
                start = newline + 1
                return
            }
        } while end > 0
    }

    /// Reads into `buffer[offset...]` (not empty), retrying when interrupted; 0 at the end of
    /// the file, which sets `atEnd`.
    private func read(into offset: Int) throws(SystemErrno) -> Int {
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { Glibc.read(fd, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemErrno(errno)
            }
            if count == 0 { atEnd = true }
            return count
        }
    }
}
