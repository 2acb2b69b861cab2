import CMicroHTTPD
import TenbinKit

#if canImport(Glibc)
    import Glibc
#endif

/// Notices event-stream clients that leave while their connection is suspended.
///
/// A live feed's connection is suspended whenever it has nothing to send (see
/// ``EventStream``), and libmicrohttpd does not poll a suspended connection: a client that
/// closed its end was only noticed when the next heartbeat failed to reach it, up to 15 s
/// later, its feed and connection held all that time. Phones leave that way all the time
/// (a tab closed, a page reloaded), each reconnect opening a new feed beside the stale one;
/// a client whose network vanishes without a word is still found by the heartbeat.
///
/// So each stream's socket is also in an epoll set of this watch's own, for the peer's
/// hang-up only (`EPOLLRDHUP`; an event stream's client never sends after its request, so
/// its end of the connection closing means it is gone). One thread waits on the set and
/// tells the stream (``EventStream/peerLeft()``), which resumes its connection so
/// libmicrohttpd closes it at once.
///
/// The socket stays libmicrohttpd's: it is registered one-shot and never removed, since the
/// kernel drops the registration when the socket is closed, and removing it by number could
/// remove a later connection's registration that reused the number. Events name a stream by
/// a number of this watch's, never by the socket.
final class HangUpWatch: Sendable {
    private struct State {
        var streams: [UInt64: EventStream] = [:]
        var next: UInt64 = 1
        var stopped = false
    }

    private let state = Locked(State())
    /// The epoll set, and an eventfd in it (event number 0) that wakes the thread to stop.
    private let poll: Int32
    private let wake: Int32

    /// A watch with its thread running; nil when the system refuses the epoll set, the
    /// eventfd or the thread (streams then end at their next heartbeat, as before).
    init?() {
        var wake: Int32 = -1
        let poll = tb_hangup_create(&wake)
        guard poll >= 0 else { return nil }
        self.poll = poll
        self.wake = wake
        guard let thread = PosixThread.start({ self.run() }) else {
            _ = close(poll)
            _ = close(wake)
            return nil
        }
        _ = pthread_detach(thread)  // ended by `stop`, which need not wait for it
    }

    /// Watches `socket` (the connection `stream` is sent on) for its client leaving; returns
    /// the number to `forget` it by, or nil when it could not be watched.
    func watch(_ socket: Int32, for stream: EventStream) -> UInt64? {
        guard socket >= 0 else { return nil }
        return state.withLock { state -> UInt64? in
            guard !state.stopped else { return nil }
            let number = state.next
            guard tb_hangup_add(poll, socket, number) == 0 else { return nil }
            state.next += 1
            state.streams[number] = stream
            return number
        }
    }

    /// Stops telling the stream watched as `number` (its exchange is over).
    func forget(_ number: UInt64) {
        _ = state.withLock { $0.streams.removeValue(forKey: number) }
    }

    /// Ends the thread and closes the set (the daemon is stopping).
    func stop() {
        let first = state.withLock { state in
            defer { state.stopped = true }
            state.streams = [:]
            return !state.stopped
        }
        guard first else { return }
        _ = tb_hangup_wake(wake)  // the thread closes both descriptors
    }

    private func run() {
        var numbers = [UInt64](repeating: 0, count: 64)
        while true {
            let count = tb_hangup_wait(poll, &numbers, Int32(numbers.count))
            guard count >= 0 else {
                // Cannot happen with a valid set; `stop` must then not write to a closed eventfd.
                state.withLock { $0.stopped = true }
                break
            }
            let stopping = numbers.prefix(Int(count)).contains(0)
            for number in numbers.prefix(Int(count)) where number != 0 {
                let stream = state.withLock { $0.streams.removeValue(forKey: number) }
                stream?.peerLeft()
            }
            if stopping { break }
        }
        _ = close(poll)
        _ = close(wake)
    }
}
