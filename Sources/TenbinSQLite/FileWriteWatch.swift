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
final class FileWriteWatch: Sendable {
    // The read source, kept under a lock only so the class is Sendable; set once in init.
    private let source: Locked<any DispatchSourceRead>

    /// Watches the file `name` in `folder` (the file need not exist yet), calling `written`
    /// (on a dispatch queue) after each batch of writes to it, at most once per ``spacing``
    /// (the handler holds the source until it is cancelled); nil when the folder cannot be
    /// watched (it does not exist, or the process has no inotify instance left).
    init?(folder: String, name: String, written: @escaping @Sendable () -> Void) {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let mask = UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO)
        guard inotify_add_watch(descriptor, folder, mask) >= 0 else {
            _ = close(descriptor)  // nothing to do if closing an unused descriptor fails
            return nil
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: .global())
        let name = Array(name.utf8)
        // A dispatch source may be suspended and resumed from any thread.
        nonisolated(unsafe) let paced = source
        source.setEventHandler {
            if Self.drain(descriptor, naming: name) { written() }
            // At most one wake per spacing: under a stream of commits (this server's own
            // votes, mostly) every commit writes the log, and each event would cost a thread
            // wake. Writes meanwhile wait in the descriptor and are read at once on resume.
            paced.suspend()
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.spacing) { paced.resume() }
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
