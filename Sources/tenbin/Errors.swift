import TenbinKit
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes to standard error.
enum Errors {
    /// Writes `text` and a newline. Messages name files and values a user or a poster chose,
    /// so they pass through ``SafeText`` like everything else drawn for people.
    static func write(_ text: String) {
        // Whatever was printed to stdout goes first, so interleaved output keeps its order.
        _ = fflush(nil)  // a failed flush of stdout shows up as missing output, nothing to add here
        // stderr gone: nowhere left to report to.
        _ = FileDescriptor.writeAll(SafeText.terminal(text, lines: .many) + "\n", to: STDERR_FILENO)
    }
}
