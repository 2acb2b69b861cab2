import Dispatch

@testable import TenbinKit

/// What a blob store did to the file system, and when rows were committed, in order.
enum FileEvent: Equatable, CustomStringConvertible {
    /// A folder created (one that existed is not recorded).
    case makeFolder(String)
    /// A new file written, left open.
    case write(String)
    /// A written file's contents made durable (fdatasync) and the file closed.
    case flush(String)
    /// A written file closed without a flush (it was being discarded).
    case close(String)
    case rename(String, to: String)
    case syncFolder(String)
    case remove(String)
    /// A transaction referencing these blobs committed.
    case commit([Digest])
    /// A point the test itself marked.
    case mark(String)

    var description: String {
        switch self {
        case .makeFolder(let path): "mkdir \(path.suffix(10))"
        case .write(let path): "write \(path.suffix(30))"
        case .flush(let path): "fdatasync \(path.suffix(30))"
        case .close(let path): "close \(path.suffix(30))"
        case .rename(let from, let to): "rename \(from.suffix(30)) → \(to.suffix(20))"
        case .syncFolder(let path): "fsync folder \(path.suffix(10))"
        case .remove(let path): "remove \(path.suffix(30))"
        case .commit(let digests): "commit \(digests.map { $0.hex.prefix(8) })"
        case .mark(let name): "mark \(name)"
        }
    }
}

/// A shared, ordered log of events.
final class EventLog: Sendable {
    private let events = Locked<[FileEvent]>([])

    func append(_ event: FileEvent) { events.withLock { $0.append(event) } }
    var all: [FileEvent] { events.withLock { $0 } }
}

/// The real file system, recording each call that changes it; `pauseAfterWrite` holds every
/// writer after its temporary file is written until that many writers have got there;
/// `holdFlushes` holds every flush until the test signals it once per flush; `failing` names
/// calls that fail with EIO ("write", "flush", "syncFolder").
struct RecordingFileSystem: BlobFileSystem {
    let log: EventLog
    var pauseAfterWrite: Barrier? = nil
    var holdFlushes: DispatchSemaphore? = nil
    var failing: Set<String> = []
    private let real = LocalBlobFileSystem()

    init(log: EventLog, pauseAfterWrite: Barrier? = nil, holdFlushes: DispatchSemaphore? = nil, failing: Set<String> = []) {
        self.log = log
        self.pauseAfterWrite = pauseAfterWrite
        self.holdFlushes = holdFlushes
        self.failing = failing
    }

    func makeFolder(_ path: String) -> Int32 {
        let result = real.makeFolder(path)
        if result == 0 { log.append(.makeFolder(path)) }
        return result
    }

    func createFile(_ path: String, bytes: [UInt8]) -> (descriptor: Int32, failure: Int32) {
        if failing.contains("write") { return (-1, 5) }  // EIO
        let result = real.createFile(path, bytes: bytes)
        log.append(.write(path))
        pauseAfterWrite?.arrive()
        return result
    }

    func closeFile(_ path: String, descriptor: Int32, flush: Bool) -> Int32 {
        guard flush else {
            log.append(.close(path))
            return real.closeFile(path, descriptor: descriptor, flush: false)
        }
        holdFlushes?.wait()
        if failing.contains("flush") {
            _ = real.closeFile(path, descriptor: descriptor, flush: false)
            return 5  // EIO
        }
        let result = real.closeFile(path, descriptor: descriptor, flush: true)
        log.append(.flush(path))
        return result
    }

    func renameFile(_ from: String, to: String) -> Int32 {
        let result = real.renameFile(from, to: to)
        log.append(.rename(from, to: to))
        return result
    }

    func syncFolder(_ path: String) -> Int32 {
        if failing.contains("syncFolder") { return 5 }  // EIO
        let result = real.syncFolder(path)
        log.append(.syncFolder(path))
        return result
    }

    func removeFile(_ path: String) -> Int32 {
        log.append(.remove(path))
        return real.removeFile(path)
    }

    func exists(_ path: String) -> Bool { real.exists(path) }
}

/// Lets threads through only once `count` of them have arrived.
final class Barrier: Sendable {
    private let count: Int
    private let arrived = Locked(0)
    private let gate = DispatchSemaphore(value: 0)

    init(count: Int) {
        self.count = count
    }

    func arrive() {
        let last = arrived.withLock { arrived in
            arrived += 1
            return arrived == count
        }
        if last {
            for _ in 1..<count { gate.signal() }
        } else {
            gate.wait()
        }
    }
}

/// A store that records, after each write transaction commits, every blob its rows then
/// reference (a commit may reference a blob only once the blob is durable).
final class RecordingStore: StoreBackend {
    let inner: any StoreBackend
    let log: EventLog

    init(_ inner: any StoreBackend, log: EventLog) {
        self.inner = inner
        self.log = log
    }

    var location: String { inner.location }
    var changes: any ChangeSource { inner.changes }

    func read<T>(_ body: (any StoreReading) throws -> T) throws -> T { try inner.read(body) }

    func write<T>(_ body: (any StoreWriting) throws -> T) throws -> T {
        let result = try inner.write(body)
        let referenced = try inner.read { try $0.blobRows().map(\.digest) }
        log.append(.commit(referenced.sorted { $0.hex < $1.hex }))
        return result
    }

    func integrityProblems() throws -> [String] { try inner.integrityProblems() }

    func close() { inner.close() }
}

/// Checks that every blob a commit references was made durable before it: its temporary
/// file written, its contents flushed (fdatasync of that file) before it was renamed to its
/// name, the rename flushed (fsync of the blob's folder after the rename), and every folder
/// created on the way to it (its own, the blob root) flushed in its parent after it was
/// created, all before the commit. Returns what is wrong, one line per problem.
func durabilityViolations(_ events: [FileEvent], blobs: BlobStore) -> [String] {
    var problems: [String] = []
    for (commitIndex, event) in events.enumerated() {
        guard case .commit(let digests) = event else { continue }
        let before = Array(events[..<commitIndex])
        for digest in digests {
            let name = digest.hex.prefix(8)
            let final = blobs.path(for: digest)
            guard
                let renameIndex = before.lastIndex(where: {
                    if case .rename(_, let to) = $0 { return to == final }
                    return false
                }), case .rename(let temporary, _) = before[renameIndex]
            else {
                // Written before the test began recording, or never: it must exist now.
                if !blobs.contains(digest) { problems.append("\(name): committed without a file") }
                continue
            }
            guard let writeIndex = before[..<renameIndex].lastIndex(of: .write(temporary)) else {
                problems.append("\(name): renamed from a file that was never written")
                continue
            }
            if !before[writeIndex..<renameIndex].contains(.flush(temporary)) {
                problems.append("\(name): renamed before its contents were flushed")
            }
            let folder = parentFolder(final)
            if !before[renameIndex...].contains(.syncFolder(folder)) {
                problems.append("\(name): committed before its rename was flushed")
            }
            for created in [folder, blobs.root] {
                guard let madeIndex = before.lastIndex(of: .makeFolder(created)) else { continue }
                if !before[madeIndex...].contains(.syncFolder(parentFolder(created))) {
                    problems.append("\(name): committed before the new folder \(created) was flushed in its parent")
                }
            }
        }
    }
    return problems
}

/// The folder holding `path` (which always has one here).
func parentFolder(_ path: String) -> String {
    String(path[..<path.lastIndex(of: "/")!])
}
