import Dispatch

@testable import TenbinKit

/// What a blob store did to the file system, and when rows were committed, in order.
enum FileEvent: Equatable, CustomStringConvertible {
    case write(String, synced: Bool)
    case rename(String, to: String)
    case syncFolder(String)
    case syncFileSystem
    case remove(String)
    /// A transaction referencing these blobs committed.
    case commit([Digest])

    var description: String {
        switch self {
        case .write(let path, let synced): "write \(path.suffix(30))\(synced ? " + fsync" : "")"
        case .rename(let from, let to): "rename \(from.suffix(30)) → \(to.suffix(20))"
        case .syncFolder(let path): "fsync folder \(path.suffix(10))"
        case .syncFileSystem: "syncfs"
        case .remove(let path): "remove \(path.suffix(30))"
        case .commit(let digests): "commit \(digests.map { $0.hex.prefix(8) })"
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
/// writer after its temporary file is written until that many writers have got there.
struct RecordingFileSystem: BlobFileSystem {
    let log: EventLog
    var pauseAfterWrite: Barrier? = nil
    var failing: Set<String> = []
    private let real = LocalBlobFileSystem()

    init(log: EventLog, pauseAfterWrite: Barrier? = nil, failing: Set<String> = []) {
        self.log = log
        self.pauseAfterWrite = pauseAfterWrite
        self.failing = failing
    }

    func makeFolder(_ path: String) -> Int32 { real.makeFolder(path) }

    func writeNewFile(_ path: String, bytes: [UInt8], sync: Bool) -> Int32 {
        if failing.contains(sync ? "fsync" : "write") { return 5 }  // EIO
        let result = real.writeNewFile(path, bytes: bytes, sync: sync)
        log.append(.write(path, synced: sync))
        pauseAfterWrite?.arrive()
        return result
    }

    func renameFile(_ from: String, to: String) -> Int32 {
        let result = real.renameFile(from, to: to)
        log.append(.rename(from, to: to))
        return result
    }

    func syncFolder(_ path: String) -> Int32 {
        log.append(.syncFolder(path))
        return real.syncFolder(path)
    }

    func syncFileSystem(containing path: String) -> Int32 {
        if failing.contains("syncfs") { return 5 }  // EIO
        log.append(.syncFileSystem)
        return real.syncFileSystem(containing: path)
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
}

/// Checks that every blob a commit references was made durable before it: its temporary
/// file written, its contents flushed (fsync of the file, or syncfs after the write), renamed
/// to its name, and the rename flushed (fsync of its folder, or syncfs after the rename), all
/// before the commit. Returns what is wrong, one line per blob.
func durabilityViolations(_ events: [FileEvent], blobs: BlobStore) -> [String] {
    var problems: [String] = []
    for (commitIndex, event) in events.enumerated() {
        guard case .commit(let digests) = event else { continue }
        let before = Array(events[..<commitIndex])
        for digest in digests {
            let final = blobs.path(for: digest)
            guard
                let renameIndex = before.lastIndex(where: {
                    if case .rename(_, let to) = $0 { return to == final }
                    return false
                }), case .rename(let temporary, _) = before[renameIndex]
            else {
                // Written before the test began recording, or never: it must exist now.
                if !blobs.contains(digest) { problems.append("\(digest.hex.prefix(8)): committed without a file") }
                continue
            }
            guard
                let writeIndex = before[..<renameIndex].lastIndex(where: {
                    if case .write(let path, _) = $0 { return path == temporary }
                    return false
                }), case .write(_, let synced) = before[writeIndex]
            else {
                problems.append("\(digest.hex.prefix(8)): renamed from a file that was never written")
                continue
            }
            if !synced && !before[writeIndex..<renameIndex].contains(.syncFileSystem) {
                problems.append("\(digest.hex.prefix(8)): renamed before its contents were flushed")
            }
            let folder = String(final[..<final.lastIndex(of: "/")!])  // a blob path always has a folder
            if !before[renameIndex...].contains(where: { $0 == .syncFileSystem || $0 == .syncFolder(folder) }) {
                problems.append("\(digest.hex.prefix(8)): committed before its rename was flushed")
            }
        }
    }
    return problems
}
