#if canImport(Glibc)
    import Glibc
#endif

extension StringProtocol {
    /// Whether both texts are the same UTF-8 bytes: one `memcmp` where both are stored
    /// contiguously (the usual case), a walk over the bytes otherwise. Unlike `==`, which
    /// compares characters (an é of one scalar equals an é of two), this compares what a
    /// router, a file or SQLite sees, and takes no time for a string compared with itself.
    @inlinable package func hasSameUTF8(as other: some StringProtocol) -> Bool {
        let count = utf8.count
        guard other.utf8.count == count else { return false }
        guard count > 0 else { return true }
        let compared = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in
                a.baseAddress == b.baseAddress || memcmp(a.baseAddress!, b.baseAddress!, count) == 0
            }
        }
        return (compared ?? nil) ?? utf8.elementsEqual(other.utf8)
    }
}
