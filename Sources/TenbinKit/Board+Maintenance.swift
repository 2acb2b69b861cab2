/// What `gc` removed.
public struct GarbageReport: Sendable, Equatable {
    /// Blobs removed (rows and files no poster references).
    public var removedBlobs: [Digest] = []
    /// Bytes those files took.
    public var removedBytes = 0
    /// Leftover temporary files of interrupted writes that were removed.
    public var removedTemporaryFiles = 0
    /// Preview-card files removed: cards of posters no longer on the board, and temporary
    /// card files of interrupted writes (see ``PreviewCardFolder``).
    public var removedCardFiles = 0
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
    /// Posters whose search records `check --repair` wrote afresh before checking; nil
    /// when no repair was asked for.
    public var searchRebuilt: Int?

    /// Whether no problem was found.
    public var isSound: Bool { problems.isEmpty }
}

extension Board {
    /// Temporary files younger than this may belong to a write under way and are kept.
    static let temporaryGrace = 3600

    /// Removes blobs no poster references, stale temporary files, and preview cards of posters
    /// no longer on the board, and compacts timelines (``compactTimelines()``).
    ///
    /// Files are removed while holding the store's write lock, and a post re-checks its blob
    /// files under that same lock before committing, so gc never removes a file a poster is
    /// about to reference.
    public func collectGarbage() throws -> GarbageReport {
        var report = GarbageReport()
        try compactTimelines()
        _ = try store.write { writing in
            let unused = try writing.unreferencedBlobRows()
            for digest in unused { try writing.deleteBlobRow(digest) }
        }
        let inventory = try blobs.inventory()
        // A file is removed only while its blob is locked and no row names it, so a post that
        // references the same bytes either committed first (the row keeps the file) or
        // restores the file before it commits.
        for chunk in stride(from: 0, to: inventory.digests.count, by: 500).map({
            inventory.digests[$0..<min($0 + 500, inventory.digests.count)]
        }) {
            try store.write { writing in
                try writing.lockBlobs(Array(chunk))
                let present = try writing.blobRowsPresent(Array(chunk))
                for digest in chunk where !present.contains(digest) {
                    report.removedBytes += FileSystem.size(of: blobs.path(for: digest)) ?? 0
                    try blobs.remove(digest)
                    report.removedBlobs.append(digest)
                }
            }
        }
        for file in inventory.temporaryFiles where file.age >= Self.temporaryGrace {
            try blobs.removeTemporary(file.path)
            report.removedTemporaryFiles += 1
        }
        report.removedCardFiles = try collectCardGarbage()
        return report
    }

    /// How many posters a search rebuild reads and records at a time.
    static let searchRebuildSlice = 20_000

    /// Writes every poster's search record afresh from its text, keys and index, in one
    /// transaction, and returns how many posters it recorded. Everything `check` can find
    /// wrong with search (a poster without a key, a key that is not the normal form of its
    /// text, a key left by a deleted poster, a damaged block of the index) is derived from
    /// the posters' text, so this mends it. Reads go on meanwhile; writes wait for it.
    public func rebuildSearch() throws -> Int {
        try store.write { writing in
            try writing.clearSearch()
            var recorded = 0
            var after: Int64 = 0
            while true {
                let posters = try writing.posters(afterID: after, limit: Self.searchRebuildSlice)
                guard let last = posters.last else { return recorded }
                try writing.storeSearch(
                    ids: posters.map(\.id), search: posters.map { SearchRecord(contents: $0.contents, hashtags: $0.hashtags) })
                recorded += posters.count
                after = last.id
            }
        }
    }

    /// Checks the store; with `repairingSearch`, first rebuilds search (``rebuildSearch()``)
    /// and records how many posters it recorded in the report.
    public func check(repairingSearch: Bool = false) throws -> CheckReport {
        var report = CheckReport()
        if repairingSearch { report.searchRebuilt = try rebuildSearch() }
        report.problems += try store.integrityProblems().map { "database: \($0)" }
        report.problems += try searchKeyProblems()
        report.problems += try timelineProblems()
        report.posters = try count()
        let rows = try store.read { try $0.blobRows() }
        report.blobs = rows.count
        for row in rows {
            guard let problem = blobProblem(row) else { continue }
            report.problems.append("blob \(row.digest.hex): \(problem)\(try usedBy(row.digest))")
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

    /// What is wrong with a blob row's file, if anything.
    private func blobProblem(_ row: StoredImage) -> String? {
        let path = blobs.path(for: row.digest)
        guard blobs.contains(row.digest) else { return "file \(path) is missing" }
        let bytes: [UInt8]
        do {
            bytes = try blobs.read(row.digest)
        } catch {
            return "\(error)"
        }
        let actual = Digest(of: bytes)
        if actual != row.digest { return "file \(path) hashes to \(actual.hex); it is corrupt" }
        if bytes.count != row.bytes { return "the row records \(row.bytes) bytes but the file has \(bytes.count)" }
        return nil
    }

    /// "; used by poster 3" (or posters 3, 7), naming the posters a broken blob breaks.
    private func usedBy(_ digest: Digest) throws -> String {
        let ids = try store.read { try $0.posterIDs(using: digest) }
        guard !ids.isEmpty else { return "" }
        return "; used by poster\(ids.count == 1 ? "" : "s") " + ids.prefix(20).map(String.init).joined(separator: ", ")
            + (ids.count > 20 ? " and \(ids.count - 20) more" : "")
    }

    /// Posters whose timeline does not add up to their counts, and buckets of posters that do
    /// not exist: one pass, 1,000 posters at a time, so memory stays bounded.
    func timelineProblems() throws -> [String] {
        try store.read { reading in
            var problems: [String] = []
            var afterID: Int64 = 0
            while true {
                let posters = try reading.posters(afterID: afterID, limit: 1_000)
                // The last batch also covers every id above the last poster, where only stray
                // buckets can be.
                let upper = posters.count < 1_000 ? Int64.max : posters.last?.id ?? Int64.max
                var sums: [Int64: (Int, Int)] = [:]
                for row in try reading.timelineRows(posters: (afterID + 1)...upper) {
                    let sum = sums[row.posterID] ?? (0, 0)
                    sums[row.posterID] = (sum.0 + row.bucket.good1, sum.1 + row.bucket.good2)
                }
                for poster in posters {
                    let sum = sums.removeValue(forKey: poster.id) ?? (0, 0)
                    if sum != (poster.good1, poster.good2) {
                        problems.append(
                            "poster \(poster.id)'s timeline adds up to \(sum.0)/\(sum.1) votes but it has \(poster.good1)/\(poster.good2)")
                    }
                }
                for id in sums.keys.sorted() {
                    problems.append("timeline buckets of poster \(id), which does not exist")
                }
                guard let last = posters.last, upper != Int64.max else { break }
                afterID = last.id
            }
            return problems
        }
    }

    /// Posters whose stored search key is not the normal form of their text, with or without
    /// its readings (``SearchText/isKey(_:of:hashtags:)``; the backend's own check finds
    /// missing and stray keys).
    func searchKeyProblems() throws -> [String] {
        try store.read { reading in
            var problems: [String] = []
            var chunk: [SearchEntry] = []
            // One pass over every key, checked 500 at a time, so memory stays bounded at any
            // number of posters.
            func checkChunk() throws {
                let posters = Dictionary(uniqueKeysWithValues: try reading.posters(ids: chunk.map(\.id)).map { ($0.id, $0) })
                for entry in chunk {
                    guard let poster = posters[entry.id] else { continue }
                    if !SearchText.isKey(entry.key, of: poster.contents, hashtags: poster.hashtags) {
                        problems.append("poster \(entry.id)'s search key does not match its text")
                    }
                }
                chunk.removeAll(keepingCapacity: true)
            }
            try reading.searchCandidates([], below: nil) {
                chunk.append($0)
                if chunk.count == 500 { try checkChunk() }
                return true
            }
            try checkChunk()
            return problems
        }
    }
}
