import Glibc

/// A value behind a mutual-exclusion lock, used through `withLock { }` like
/// `Synchronization.Mutex`, but on a pthread mutex.
///
/// Why not `Mutex`: on Linux it locks with raw futex calls, which ThreadSanitizer cannot see,
/// so every access made under it is reported as a data race and `make sanitize` could not
/// tell real races from these. ThreadSanitizer understands pthread mutexes.
package final class Locked<Value>: @unchecked Sendable {
    // `value` is read and written only inside `withLock`, while `mutex` is held: that lock is
    // what makes the `@unchecked Sendable` safe.
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A lock around `value`, which must not be zero-sized (`Locked(())`): such a value shares
    /// its address with the mutex pointer, and ThreadSanitizer then reports reading the pointer
    /// as a race with the value. A plain lock holds a counter or a flag instead.
    package init(_ value: Value) {
        // Invariant named above; a zero-sized lock would make `make sanitize` report false races.
        precondition(MemoryLayout<Value>.size > 0, "Locked needs a value that takes space; use Locked(0) for a plain lock")
        self.value = value
        mutex = .allocate(capacity: 1)
        // A default mutex needs no attributes; init fails only without memory.
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        _ = pthread_mutex_destroy(mutex)  // fails only if locked, which no holder can be at deinit
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        _ = pthread_mutex_lock(mutex)  // a default mutex only fails on misuse (relocking), a bug
        defer { _ = pthread_mutex_unlock(mutex) }  // held by this thread, so it cannot fail
        return try body(&value)
    }
}
