#if canImport(Glibc)
    import Glibc
#endif

/// The two glibc malloc settings an import uses. Neither `mallopt` nor `malloc_trim` is in
/// Swift's Glibc module, so both are looked up; with another libc nothing is done.
package enum MallocTuning {
    /// Maps every allocation of 1 MiB or more on its own, so it goes back to the system when
    /// freed (glibc otherwise raises the threshold after a large free, and decoded photos are
    /// then carved from per-thread heaps that keep their pages).
    package static func mapLargeBuffersOnTheirOwn() {
        let M_MMAP_THRESHOLD: Int32 = -3  // from glibc's <malloc.h>
        // A tuning hint: when glibc refuses it (returns 0), memory is only less tidy.
        _ = mallopt?(M_MMAP_THRESHOLD, 1 << 20)
    }

    /// Returns the free pages of every malloc arena to the system. Each thread keeps an arena,
    /// and one that freed a large batch keeps its pages for the next allocation, which may
    /// never come on that thread. After each commit of a million-line import this took its
    /// peak from 278 to 239 MB for about 6 ms a commit (0.3 s of a 50 s import;
    /// docs/benchmarks.md).
    static func giveBackFreePages() {
        _ = trim?(0)  // 1 when memory was returned, 0 when there was none: either is fine
    }

    private static let mallopt = function("mallopt", as: (@convention(c) (Int32, Int32) -> Int32).self)
    private static let trim = function("malloc_trim", as: (@convention(c) (Int) -> Int32).self)

    /// A libc function by name, nil when the libc has none.
    private static func function<Function>(_ name: String, as type: Function.Type) -> Function? {
        #if canImport(Glibc)
            guard let symbol = dlsym(nil, name) else { return nil }
            return unsafeBitCast(symbol, to: type)
        #else
            return nil
        #endif
    }
}
