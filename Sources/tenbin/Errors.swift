import TenbinKit

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
        _ = FileDescriptor.writeAll(text + "\n", to: STDERR_FILENO)  // stderr gone: nowhere left to report to
    }
}
