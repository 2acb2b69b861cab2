#if canImport(Glibc)
    import Glibc
#endif

/// Giving freed heap memory back to the system.
enum FreedMemory {
    /// glibc's `malloc_trim`, looked up once (it is not in Swift's Glibc module); nil with
    /// another libc, where nothing is done.
    private static let trim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
            guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
            return nil
        #endif
    }()

    /// Returns the free pages of every malloc arena to the system. Each thread keeps an arena,
    /// and one that freed a large batch keeps its pages for the next allocation, which may
    /// never come on that thread: after each commit of a million-line import this took its
    /// peak from 278 to 239 MB at no measurable cost in time (docs/benchmarks.md).
    static func giveBack() {
        _ = trim?(0)  // 1 when memory was returned, 0 when there was none: either is fine
    }
}
