import Dispatch
import TenbinKit

#if canImport(Glibc)
    import Glibc
#endif

/// Tells when some process writes, creates or moves in one named file of a folder (Linux
/// inotify): how a SQLite change source hears another process's commit as the commit
/// writes the write-ahead log, instead of at its next tick.
///
/// Watching costs one inotify instance and a dispatch read source; nothing runs between
/// writes. Writes through a shared memory mapping are not reported, nor (on most network file
/// systems) writes by another machine: the change source's ticks still find those.
///
/// The watch is one-shot (`IN_ONESHOT`): the kernel removes it at its first event, and it is
/// put back ``spacing`` later. A watch costs every writer in the folder on every `write`, not
/// only its reader: a commit writes the log once per page and per frame header, and with the
/// watch in place the kernel queued (or merged) an event for each, 4 % of the vote batcher's
/// time under load. Writes while the watch is away are not seen, so putting it back counts
/// as a write (the reader then looks once more, for nothing if there was none).
final class FileWriteWatch: Sendable {
    // The read source, kept under a lock only so the class is Sendable; set once in init.
    private let source: Locked<any DispatchSourceRead>

    /// What is watched: the file's own events, once.
    private static let mask = UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO) | IN_ONESHOT

    /// Watches the file `name` in `folder` (the file need not exist yet), calling `written`
    /// (on a dispatch queue) after each batch of writes to it, at most about once per
    /// ``spacing``; nil when the folder cannot be watched (it does not exist, or the process
    /// has no inotify instance left).
    init?(folder: String, name: String, written: @escaping @Sendable () -> Void) {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        guard inotify_add_watch(descriptor, folder, Self.mask) >= 0 else {
            _ = close(descriptor)  // nothing to do if closing an unused descriptor fails
            return nil
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: .global())
        let name = Array(name.utf8)
        // A dispatch source may be suspended and resumed from any thread.
        nonisolated(unsafe) let paced = source
        source.setEventHandler {
            if Self.drain(descriptor, naming: name) { written() }
            // The event removed the watch. It comes back after the spacing: under a stream of
            // commits (this server's own votes, mostly) that is one wake and one look per
            // spacing, and no event for the writes in between. (A cancelled source keeps its
            // descriptor open until it is resumed, below.)
            paced.suspend()
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.spacing) {
                // A folder gone meanwhile cannot be watched again: the ticks are left.
                if inotify_add_watch(descriptor, folder, Self.mask) >= 0 { written() }
                paced.resume()
            }
        }
        source.setCancelHandler { _ = close(descriptor) }
        source.resume()
        self.source = Locked(source)
    }

    deinit {
        source.withLock { $0.cancel() }
    }

    /// The least time between two reads of the events.
    static let spacing = DispatchTimeInterval.milliseconds(5)

    /// Reads every pending event; whether one of them names the file `name`.
    private static func drain(_ descriptor: Int32, naming name: [UInt8]) -> Bool {
        var found = false
        // Room for many events; each is a 16-byte header and its name, padded. Only the bytes
        // `read` wrote are looked at, so the buffer needs no zeroing.
        return withUnsafeTemporaryAllocation(byteCount: 8192, alignment: 8) { buffer in
            while true {
                let count = read(descriptor, buffer.baseAddress, buffer.count)
                guard count > 0 else { return found }  // EAGAIN: drained (errors leave the ticks to it)
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= count {
                    let length = Int(buffer.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let named = buffer[(offset + header)..<min(count, offset + header + length)].prefix { $0 != 0 }
                    if named.elementsEqual(name) { found = true }
                    offset += header + length
                }
            }
        }
    }
}
