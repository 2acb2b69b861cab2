#if canImport(Glibc)
    import Glibc
#endif

/// Bytes kept in memory and shared by many answers (a blob's), handed to libmicrohttpd without
/// a copy: each response it makes holds a reference until it has sent them. Never changed after
/// they are read, so any thread may send them.
final class SharedBytes: Sendable {
    /// The bytes, owned here and freed in `deinit`. Written only in `init`, read-only after:
    /// sharing them between threads needs no lock.
    private nonisolated(unsafe) let storage: UnsafeMutableRawBufferPointer

    /// How many bytes there are.
    var count: Int { storage.count }

    /// Where they start, for the library (valid while this object lives).
    var baseAddress: UnsafeMutableRawPointer? { storage.baseAddress }

    /// The first `count` bytes of the open file `descriptor` (read with `pread`, so its offset
    /// does not move); nil when they cannot all be read.
    init?(reading descriptor: Int32, count: Int) {
        guard count > 0 else { return nil }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        var done = 0
        while done < count {
            let read = pread(descriptor, storage.baseAddress! + done, count - done, off_t(done))  // never empty: count > 0
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else {
                storage.deallocate()
                return nil
            }
            done += read
        }
        self.storage = storage
    }

    deinit {
        storage.deallocate()
    }

    /// The bytes as an array (tests and the request log's callers, never the hot path).
    var array: [UInt8] { Array(storage) }
}
