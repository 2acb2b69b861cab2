import TenbinKit

#if canImport(Glibc)
    import Glibc
#endif

/// A small pool of connections to one database, at most `size` open at once.
///
/// A borrower gets a connection for the length of one closure and gives it back after. When
/// every connection is lent out, a borrower waits for one. A connection that failed (the
/// server restarted, `pg_terminate_backend`, a network cut) is dropped instead of returned,
/// and an idle one found dead is replaced before it is lent, so after PostgreSQL comes back
/// the next request succeeds without restarting tenbin; while it is down, requests fail with
/// a ``PostgresError`` of kind `unavailable`.
public final class ConnectionPool: @unchecked Sendable {
    // `idle` and `open` are read and written only while `mutex` is held; `condition` is
    // signalled whenever either changes. That lock is what makes the `@unchecked Sendable`
    // safe; each `Connection` in `idle` is used by nobody until it is taken out under the lock.
    private var idle: [Connection] = []
    private var open = 0
    private var closed = false
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    /// The database.
    package let target: ConnectionTarget
    /// The most connections open at once.
    package let size: Int

    /// The default pool size: enough for a server's concurrent reads on a small machine.
    public static let defaultSize = 8

    /// A pool of at most `size` connections to `target`; none is opened until first used.
    package init(target: ConnectionTarget, size: Int = defaultSize) {
        precondition(size > 0, "a pool holds at least one connection")  // callers validate the option
        self.target = target
        self.size = size
        // Default attributes; both fail only without memory.
        _ = pthread_mutex_init(mutex, nil)
        _ = pthread_cond_init(condition, nil)
    }

    deinit {
        idle.removeAll()
        _ = pthread_cond_destroy(condition)  // nobody waits: a waiter holds a reference
        _ = pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Waits until every connection lent out is back, then closes them all; every later
    /// borrower (and every one waiting now) throws ``StoreError`` (`closed`). Closing again
    /// does nothing more.
    public func close() {
        _ = pthread_mutex_lock(mutex)
        closed = true
        // Borrowers waiting for a connection end with the error; after them, the only waiter
        // is this call, woken by each connection given back.
        _ = pthread_cond_broadcast(condition)
        while idle.count < open { _ = pthread_cond_wait(condition, mutex) }
        var closing = idle
        idle = []
        open = 0
        _ = pthread_mutex_unlock(mutex)
        closing.removeAll()  // each connection closes as the pool, its only holder, lets go of it
    }

    /// Runs `body` with a connection of the pool.
    package func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        let connection = try checkOut()
        do {
            let value = try body(connection)
            checkIn(connection)
            return value
        } catch {
            checkIn(connection)
            throw error
        }
    }

    /// Runs `body` in a transaction on a pooled connection, again from the start (up to a few
    /// times) when it lost a deadlock or serialization race.
    package func transaction<T>(_ body: (Connection) throws -> T) throws -> T {
        var attempt = 0
        while true {
            do {
                return try withConnection { connection in try connection.transaction { try body(connection) } }
            } catch let error as PostgresError where error.isRetryable && attempt < 8 {
                attempt += 1
            }
        }
    }

    private func checkOut() throws -> Connection {
        while true {
            _ = pthread_mutex_lock(mutex)  // a default mutex fails only on misuse
            while idle.isEmpty && open >= size && !closed {
                _ = pthread_cond_wait(condition, mutex)  // returns with the mutex held
            }
            if closed {
                _ = pthread_mutex_unlock(mutex)
                throw StoreError(.closed, at: target.description)
            }
            if let connection = idle.popLast() {
                _ = pthread_mutex_unlock(mutex)
                // Outside the lock: it may wait for the answer to a COMMIT sent without waiting.
                if connection.isIdleAndAlive() { return connection }
                _ = pthread_mutex_lock(mutex)
                open -= 1
                _ = pthread_cond_signal(condition)
                _ = pthread_mutex_unlock(mutex)
                continue  // the stale connection closes here, outside the lock
            }
            open += 1
            _ = pthread_mutex_unlock(mutex)
            do {
                return try Connection(target)
            } catch {
                _ = pthread_mutex_lock(mutex)
                open -= 1
                _ = pthread_cond_signal(condition)
                _ = pthread_mutex_unlock(mutex)
                throw error
            }
        }
    }

    private func checkIn(_ connection: Connection) {
        // A read's COMMIT may still be on its way (``Connection/commitWithoutWaiting()``): the
        // next borrower's check-out reads its answer.
        let keep = !connection.isBroken && (connection.hasPendingCommit || !connection.isInTransaction)
        _ = pthread_mutex_lock(mutex)
        if keep { idle.append(connection) } else { open -= 1 }
        _ = pthread_cond_signal(condition)
        _ = pthread_mutex_unlock(mutex)
    }
}
