import TenbinKit

#if canImport(Glibc)
    import Glibc
#endif

/// A connection that LISTENs on one channel, on its own thread, and reconnects when it is lost.
///
/// The handler hears, in order: `.listening` each time the LISTEN is in place (first and after
/// every reconnect — anything committed while it was not listening was missed, so the owner
/// re-reads), `.notification` for each NOTIFY, and `.lost` once per outage. It is called on the
/// listener's thread and must not block for long.
package final class NotificationListener: @unchecked Sendable {
    /// What the listener saw.
    package enum Event: Sendable, Equatable {
        /// LISTEN is in place (after connecting or reconnecting): re-read what is watched.
        case listening
        /// A notification's payload.
        case notification(String)
        /// The connection was lost or could not be made; the listener keeps trying.
        case lost(String)
    }

    private let target: ConnectionTarget
    private let channel: String
    private let handler: @Sendable (Event) -> Void
    private let retryMilliseconds: Int32
    // Written once before the thread starts, then only read; the pipe's write end wakes the
    // thread to stop. `stopped` is read and written under `state`'s lock.
    private var wake: (read: Int32, write: Int32) = (-1, -1)
    private var thread = pthread_t()
    private let state = Locked((stopped: false, joined: false))

    /// How often an idle listener checks its connection (a silent network cut sends nothing).
    static let keepAliveMilliseconds: Int32 = 5_000

    /// Starts listening on `channel` (a plain identifier) in the background.
    package init(
        target: ConnectionTarget, channel: String, retryMilliseconds: Int = 200, handler: @escaping @Sendable (Event) -> Void
    ) throws {
        precondition(channel.utf8.allSatisfy { $0 == 0x5F || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }, "channel")
        self.target = target
        self.channel = channel
        self.handler = handler
        self.retryMilliseconds = Int32(retryMilliseconds)
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw PostgresError(kind: .unavailable, sqlState: nil, message: "cannot create a pipe", target: target.description)
        }
        for fd in fds {
            // Fails only on a bad descriptor; these two were just made.
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        wake = (fds[0], fds[1])
        // The thread keeps the listener until it ends.
        guard let thread = PosixThread.start({ self.run() }) else {
            // deinit runs for this fully initialised object and closes both ends; closing them
            // here too would close whatever another thread had opened under those numbers since.
            throw PostgresError(kind: .unavailable, sqlState: nil, message: "cannot start a thread", target: target.description)
        }
        self.thread = thread
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    /// Stops listening and waits for the thread to end. Safe to call more than once.
    package func stop() {
        let join = state.withLock { state -> Bool in
            defer { state = (true, true) }
            return !state.joined
        }
        guard join else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)  // the pipe is empty or holds a byte already: either wakes
        _ = pthread_join(thread, nil)  // the thread is joinable and joined once (guarded above)
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func run() {
        var reportedLoss = false
        while !isStopped {
            do {
                let connection = try Connection(target)
                try connection.execute("LISTEN \(channel)")
                reportedLoss = false
                handler(.listening)
                try listen(on: connection)
            } catch let error as PostgresError {
                if isStopped { return }
                if !reportedLoss { handler(.lost(error.description)) }
                reportedLoss = true
                if waitForWake(milliseconds: retryMilliseconds) { return }
            } catch {
                return  // `listen` throws only PostgresError
            }
        }
    }

    /// Delivers notifications until the connection fails (throws) or the listener stops.
    private func listen(on connection: Connection) throws {
        while true {
            var descriptors = [
                pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, Self.keepAliveMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            if descriptors[1].revents != 0 || isStopped { return }
            if ready == 0 {
                try connection.execute("SELECT 1")
            } else {
                guard connection.consumeInput(), !connection.isBroken else { throw connection.lastError }
            }
            while let notification = connection.nextNotification() {
                handler(.notification(notification.payload))
            }
        }
    }

    /// Waits up to `milliseconds`; true when woken to stop.
    private func waitForWake(milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, milliseconds) > 0 || isStopped
    }
}
