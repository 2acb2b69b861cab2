import Dispatch

/// How ``Board/copy(to:options:progress:)`` runs.
public struct CopyOptions: Sendable {
    /// Continue a copy that was interrupted: the target may already hold what an earlier copy
    /// of the same source wrote, and posters are copied from above its highest id.
    public var resume = false
    /// Posters per transaction.
    public var posterBatch = 2000
    /// Blob rows per transaction.
    public var blobBatch = 500
    /// The most bytes of image files read into memory before they are written out.
    public var blobBatchBytes = 64 << 20
    /// Give the target's blob folder each image file as a second name of the source's (a hard
    /// link, after checking that the file hashes to its name) where the file system allows,
    /// instead of a copy. A backup does this: blob files are never changed in place, so the
    /// two stores can share them.
    public var linkFiles = false

    /// Options with the defaults.
    public init(resume: Bool = false, posterBatch: Int = 2000) {
        self.resume = resume
        self.posterBatch = max(1, posterBatch)
    }
}

/// How far a copy has come.
public struct CopyProgress: Sendable {
    /// What is being copied.
    public enum Stage: String, Sendable {
        case blobs, posters, verifying
    }

    /// What is being copied.
    public var stage: Stage
    /// How many of `stage`'s things are done.
    public var done: Int
    /// How many there are in all, when known.
    public var total: Int?
}

/// What a copy did, and what both boards hold after it.
public struct CopyReport: Sendable {
    /// Posters written to the target by this run.
    public var postersCopied = 0
    /// Blob rows written (those already present included).
    public var blobRowsCopied = 0
    /// Image files written to the target's blob folder.
    public var filesWritten = 0
    /// Image files the target's blob folder already had (a shared folder, or a resumed copy).
    public var filesPresent = 0
    /// Of ``filesWritten``, those given as hard links to the source's files (``CopyOptions/linkFiles``).
    public var filesLinked = 0
    /// Blob rows left out: rows no poster of the snapshot uses whose files a `gc` removed
    /// while the copy ran (it had deleted the rows after the snapshot was taken).
    public var blobRowsSkipped = 0
    /// With `resume`: the highest id the target already had.
    public var resumedAfter: Int64?
    /// The source as the copy read it, from the one snapshot it copied (less the skipped
    /// rows): what the target is to hold, whatever the source holds by now.
    public var source = BoardSummary()
}

extension Board {
    /// Copies this whole board into `target` (another store, and its blob folder): blob rows
    /// and image files first, then posters with their ids, votes, creation times, hashtags,
    /// search records and timelines, in batches of one transaction each, all read from one snapshot of this
    /// board. Image files are written to the target's folder as every blob is (whole, durable,
    /// then renamed), unless the folder has them already (a shared folder). Finally the
    /// target's ids are moved past the highest id this board ever gave.
    ///
    /// An empty target is required unless `options.resume` is set. A copy that is interrupted
    /// leaves whole batches only, and its next post still gets a new id; it can be continued
    /// with `resume`. Call ``verifyCopy(of:)`` on the target afterwards.
    public func copy(to target: Board, options: CopyOptions = CopyOptions(), progress: (CopyProgress) throws -> Void = { _ in }) throws
        -> CopyReport
    {
        var report = CopyReport()
        let (held, highest) = try target.store.read { reading in
            let held = (posters: try reading.count(), blobs: try reading.blobRecords(after: nil, limit: 1).count)
            return (held, try reading.page(order: .new, after: nil, offset: 0, limit: 1).first?.id)
        }
        if options.resume {
            report.resumedAfter = highest ?? 0
        } else if held.posters > 0 || held.blobs > 0 {
            throw CopyError.targetNotEmpty(target.store.location, posters: held.posters)
        }
        try store.read { source in
            var summary = BoardSummary.Builder()
            let total = try source.count()
            var after: Digest?
            while true {
                let records = try source.blobRecords(after: after, limit: options.blobBatch)
                guard let last = records.last else { break }
                summary.add(try copyBlobs(records, from: source, to: target, options: options, report: &report))
                after = last.image.digest
                try progress(CopyProgress(stage: .blobs, done: report.blobRowsCopied, total: nil))
            }
            var afterID: Int64 = 0
            // A resumed copy's earlier posters are in the target already; the summary reads them.
            while afterID < report.resumedAfter ?? 0 {
                let posters = try source.posters(afterID: afterID, limit: options.posterBatch).filter { $0.id <= report.resumedAfter ?? 0 }
                guard let last = posters.last else { break }
                summary.add(posters)
                summary.add(try source.timelineRows(posters: (afterID + 1)...last.id))
                afterID = last.id
            }
            afterID = report.resumedAfter ?? 0
            while true {
                let posters = try source.posters(afterID: afterID, limit: options.posterBatch)
                guard let last = posters.last else { break }
                let records = Self.records(posters)
                let timelines = try source.timelineRows(posters: (afterID + 1)...last.id)
                try target.store.write { writing in
                    try writing.insertPosters(records)
                    try writing.insertTimelineRows(timelines)
                }
                summary.add(posters)
                summary.add(timelines)
                report.postersCopied += posters.count
                afterID = last.id
                try progress(CopyProgress(stage: .posters, done: report.postersCopied, total: total))
            }
            let lastID = try source.lastPosterID()
            // Reports, hidden marks and the audit log, once every poster they name is there.
            let moderation = try source.moderationRecords()
            try target.store.write { writing in
                try writing.reservePosterIDs(through: lastID)
                try writing.insertModeration(moderation)
            }
            report.source = summary.finish(lastPosterID: lastID)
        }
        return report
    }

    /// Copies one batch of blob rows: files that the target's folder lacks are read, checked
    /// against their names and written or linked (in groups of at most `blobBatchBytes`), then
    /// the rows are committed, so a row never names a file that is not there whole. Returns the
    /// rows copied: a row whose file is gone is left out when no poster of the snapshot uses it
    /// (a `gc` removed it after the snapshot), and stops the copy otherwise.
    private func copyBlobs(
        _ records: [BlobRecord], from source: any StoreReading, to target: Board, options: CopyOptions, report: inout CopyReport
    ) throws -> [BlobRecord] {
        var staged: [StagedBlob] = []
        var stagedBytes = 0
        var copied: [BlobRecord] = []
        do {
            for record in records {
                let digest = record.image.digest
                if target.blobs.contains(digest) {
                    report.filesPresent += 1
                    copied.append(record)
                    continue
                }
                guard blobs.contains(digest) else {
                    if try source.posterIDs(using: digest).isEmpty {
                        report.blobRowsSkipped += 1
                        continue
                    }
                    throw CopyError.sourceBlob(digest, "has no file at \(blobs.path(for: digest))")
                }
                let bytes = try blobs.read(digest)
                let linked =
                    options.linkFiles && Digest(of: bytes) == digest
                    ? try target.blobs.stageLink(digest, from: blobs.path(for: digest)) : nil
                let blob = try linked ?? target.blobs.stage(bytes)
                staged.append(blob)
                guard blob.digest == digest || linked != nil else {
                    throw CopyError.sourceBlob(digest, "file hashes to \(blob.digest.hex); it is corrupt")
                }
                if linked == nil {
                    stagedBytes += bytes.count
                } else {
                    report.filesLinked += 1
                }
                report.filesWritten += 1
                copied.append(record)
                if stagedBytes >= options.blobBatchBytes {
                    try target.blobs.publish(staged)
                    staged = []
                    stagedBytes = 0
                }
            }
            try target.blobs.publish(staged)
        } catch {
            target.blobs.discard(staged)
            throw error
        }
        try target.store.write { try $0.insertBlobs(copied) }
        report.blobRowsCopied += copied.count
        return copied
    }

    /// The records of `posters`, their search records computed on every core.
    static func records(_ posters: [Poster]) -> [PosterRecord] {
        let chunks = max(1, min(4, posters.count / 256))
        let size = (posters.count + chunks - 1) / chunks
        let parts = Locked([[PosterRecord]](repeating: [], count: chunks))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let slice = posters[min(posters.count, chunk * size)..<min(posters.count, (chunk + 1) * size)]
            let records = slice.map(PosterRecord.init)
            parts.withLock { $0[chunk] = records }
        }
        return parts.withLock { $0 }.flatMap { $0 }
    }

    /// This board's summary, from one snapshot.
    public func summary() throws -> BoardSummary {
        try store.read { try BoardSummary($0) }
    }

    /// Checks that this board is a whole copy of `source` as it is now (a source nothing
    /// wrote to since): `check` finds nothing wrong, and both hold the same posters and blob
    /// rows (counts and digests) and the same timelines, with ids drawn from above the source's
    /// highest. Returns both
    /// summaries; throws ``CopyError`` naming the first difference otherwise.
    public func verifyCopy(of source: Board) throws -> (source: BoardSummary, target: BoardSummary, check: CheckReport) {
        try verifyCopy(of: source, as: try source.summary(), asRead: false)
    }

    /// Checks that this board is a whole copy of the snapshot of `source` that a copy read
    /// (``CopyReport/source``), as ``verifyCopy(of:)`` does, while `source` goes on changing:
    /// votes and posts since the snapshot are not differences.
    public func verifyCopy(of source: Board, asRead theirs: BoardSummary) throws -> (
        source: BoardSummary, target: BoardSummary, check: CheckReport
    ) {
        try verifyCopy(of: source, as: theirs, asRead: true)
    }

    private func verifyCopy(of source: Board, as theirs: BoardSummary, asRead: Bool) throws -> (
        source: BoardSummary, target: BoardSummary, check: CheckReport
    ) {
        let check = try check()
        guard check.isSound else { throw CopyError.targetUnsound(check.problems) }
        let mine = try summary()
        if mine.posterDigest != theirs.posterDigest || mine.posters != theirs.posters {
            // The source may have moved on since the snapshot; what differs now is only a clue.
            let difference = try firstDifference(from: source) ?? "the posters' digests differ"
            throw CopyError.differs(asRead ? "\(difference) (compared with the source as it is now, not as the copy read it)" : difference)
        }
        if mine.timelineDigest != theirs.timelineDigest || mine.timelineBuckets != theirs.timelineBuckets {
            throw CopyError.differs(
                "the source's timelines hold \(Plural.count(theirs.timelineBuckets, "bucket")), the target's "
                    + "\(mine.timelineBuckets), or their votes or times differ")
        }
        if mine.blobDigest != theirs.blobDigest || mine.blobs != theirs.blobs || mine.uploads != theirs.uploads {
            throw CopyError.differs(
                "the source has \(Plural.count(theirs.blobs, "blob row")) with \(Plural.count(theirs.uploads, "upload")), "
                    + "the target \(mine.blobs) with \(mine.uploads), or their images differ")
        }
        if mine.lastPosterID < theirs.lastPosterID {
            throw CopyError.differs("the target would give id \(mine.lastPosterID + 1) again, which the source already gave")
        }
        return (theirs, mine, check)
    }

    /// The first poster that differs between `source` and this board, in words.
    private func firstDifference(from source: Board) throws -> String? {
        try source.store.read { theirs in
            try store.read { mine in
                var after: Int64 = 0
                while true {
                    let a = try theirs.posters(afterID: after, limit: BoardSummary.batch)
                    let b = try mine.posters(afterID: after, limit: BoardSummary.batch)
                    for (left, right) in zip(a, b) where left != right {
                        guard left.id == right.id else {
                            let id = min(left.id, right.id)
                            return "poster \(id) is only in the \(left.id < right.id ? "source" : "target")"
                        }
                        return "poster \(left.id) differs (\(Self.difference(left, right)))"
                    }
                    if a.count != b.count {
                        let id = a.count > b.count ? a[b.count].id : b[a.count].id
                        return "poster \(id) is only in the \(a.count > b.count ? "source" : "target")"
                    }
                    guard let last = a.last else { return nil }
                    after = last.id
                }
            }
        }
    }

    /// Which fields of two posters with the same id differ.
    private static func difference(_ left: Poster, _ right: Poster) -> String {
        var fields: [String] = []
        if left.good1 != right.good1 || left.good2 != right.good2 {
            fields.append("votes \(left.good1)/\(left.good2) in the source, \(right.good1)/\(right.good2) in the target")
        }
        if left.contents != right.contents { fields.append("text") }
        if left.hashtags != right.hashtags { fields.append("hashtags") }
        if left.createdAt != right.createdAt { fields.append("creation time") }
        if left.images != right.images { fields.append("images") }
        return fields.joined(separator: ", ")
    }
}
