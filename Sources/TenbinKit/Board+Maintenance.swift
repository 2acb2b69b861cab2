/// What `gc` removed.
public struct GarbageReport: Sendable, Equatable {
    /// Blobs removed (rows and files no poster references).
    public var removedBlobs: [Digest] = []
    /// Bytes those files took.
    public var removedBytes = 0
    /// Leftover temporary files of interrupted writes that were removed.
    public var removedTemporaryFiles = 0
}

/// What `check` found.
public struct CheckReport: Sendable, Equatable {
    /// Problems that make the store wrong; empty when it is sound.
    public var problems: [String] = []
    /// Things worth knowing that are not wrong (files `gc` would remove).
    public var notes: [String] = []
    /// Posters in the store.
    public var posters = 0
    /// Blob rows in the store.
    public var blobs = 0

    /// Whether no problem was found.
    public var isSound: Bool { problems.isEmpty }
}

extension Board {
    /// Temporary files younger than this may belong to a write under way and are kept.
    static let temporaryGrace = 3600

    /// Removes blobs no poster references, and stale temporary files.
    ///
    /// Files are removed while holding the store's write lock, and a post re-checks its blob
    /// files under that same lock before committing, so gc never removes a file a poster is
    /// about to reference.
    public func collectGarbage() throws -> GarbageReport {
        var report = GarbageReport()
        _ = try store.removeUnreferencedBlobRows()
        try store.withWriteLock { referenced in
            let inventory = try blobs.inventory()
            for digest in inventory.digests where !referenced.contains(digest) {
                report.removedBytes += FileSystem.size(of: blobs.path(for: digest)) ?? 0
                try blobs.remove(digest)
                report.removedBlobs.append(digest)
            }
            for file in inventory.temporaryFiles where file.age >= Self.temporaryGrace {
                try blobs.removeTemporary(file.path)
                report.removedTemporaryFiles += 1
            }
        }
        return report
    }

    /// Checks SQLite's integrity, re-hashes every blob against its name and size, and
    /// checks that every reference resolves. An unreferenced whole blob file is not a
    /// problem (a post killed before its commit leaves one); `gc` removes it.
    public func check() throws -> CheckReport {
        var report = CheckReport()
        report.problems += try store.integrityProblems().map { "database: \($0)" }
        report.posters = try store.count()
        let rows = try store.blobRows()
        report.blobs = rows.count
        for row in rows {
            let path = blobs.path(for: row.digest)
            guard blobs.contains(row.digest) else {
                report.problems.append("blob \(row.digest.hex): file \(path) is missing")
                continue
            }
            let bytes: [UInt8]
            do {
                bytes = try blobs.read(row.digest)
            } catch {
                report.problems.append("blob \(row.digest.hex): \(error)")
                continue
            }
            let actual = Digest(of: bytes)
            if actual != row.digest {
                report.problems.append("blob \(row.digest.hex): file \(path) hashes to \(actual.hex); it is corrupt")
            } else if bytes.count != row.bytes {
                report.problems.append("blob \(row.digest.hex): the row records \(row.bytes) bytes but the file has \(bytes.count)")
            }
        }
        let known = Set(rows.map(\.digest))
        let inventory = try blobs.inventory()
        let unreferenced = inventory.digests.filter { !known.contains($0) }
        if !unreferenced.isEmpty {
            report.notes.append("\(unreferenced.count) blob file(s) no poster references; `tenbin gc` removes them")
        }
        if !inventory.temporaryFiles.isEmpty {
            report.notes.append(
                "\(inventory.temporaryFiles.count) temporary file(s) from interrupted writes; `tenbin gc` removes those over an hour old")
        }
        for stranger in inventory.strangers {
            report.notes.append("\(stranger) is not a blob file")
        }
        return report
    }
}
