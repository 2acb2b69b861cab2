#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes to standard error.
enum Errors {
    static func write(_ text: String) {
        // Whatever was printed to stdout goes first, so interleaved output keeps its order.
        _ = fflush(nil)  // a failed flush of stdout shows up as missing output, nothing to add here
        var line = Array((text + "\n").utf8)
        var offset = 0
        while offset < line.count {
            // The line is never empty (it ends in a newline), so its base address exists.
            let written = line.withUnsafeMutableBytes { Glibc.write(STDERR_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 {
                if written < 0 && errno == EINTR { continue }
                return  // stderr is gone: there is nowhere left to report to
            }
            offset += written
        }
        line.removeAll()
    }
}
