import TenbinKit

/// A backend in Swift memory, for tests only: if the contract suite passes on it, the seam is
/// complete (no test needs SQLite to pass). A read sees a copy of the state; a write works on
/// a copy and swaps it in when its body returns, one writer at a time.
///
/// It is strict where the seam's rules are only enforced by some database, so the contract
/// suite catches a core that breaks them on every run, PostgreSQL or not: a `readSingle` body
/// makes one call, and never a search (PostgreSQL runs it as one statement outside a
/// transaction, so a second call would see another snapshot); vote deltas come with ids
/// distinct and ascending (two PostgreSQL servers' batches would otherwise lock rows in
/// different orders and deadlock); `storeSearch` ids ascend across a transaction.
final class MemoryStore: StoreBackend {
    struct State: Sendable {
        var posters: [Int64: Poster] = [:]
        var keys: [Int64: SearchRecord] = [:]
        var blobs: [Digest: StoredImage] = [:]
        var uploads: [String: Digest] = [:]
        var lastID: Int64 = 0
        var version: Int64 = 0
        /// The vote log: each batch's posters with their totals before it, in commit order
        /// (batch numbers ascending); the last batch's number, the oldest mark answered, and
        /// the batch numbers noted at pruning times.
        var voteLog: [(batch: Int64, id: Int64, before: Int, scoreBefore: Int64)] = []
        var lastBatch: Int64 = 0
        var oldestMark: Int64 = 0
        var voteLogTimes: [(at: Int64, batch: Int64)] = []
        var hidden: [Int64: Timestamp] = [:]
        var postProofKey: [UInt8]?
        var spentProofs: [String: Timestamp] = [:]
        /// By poster, then reporter.
        var reports: [Int64: [String: Report]] = [:]
        var cleared: Set<ClearedReporter> = []
        var audit: [Int64: AuditEntry] = [:]
        var lastAuditID: Int64 = 0
        var hashes: [Digest: PerceptualHash] = [:]
        var blocked: [BlockedImage] = []
        var lastBlockedID: Int64 = 0
        /// Timeline buckets by poster and start.
        var buckets: [Timeline.TimelineKey: TimelineBucket] = [:]
    }

    private let state = Locked(State())
    /// Set by ``close()``: every call throws from then on, as a real backend's does.
    private let closed = Locked(false)
    /// Writers take turns here, so a write's read-modify-swap is never interleaved.
    private let writer = Locked(0)
    /// Called as `commitVotes` begins, before it takes its turn to write (tests hold a commit
    /// there to see what the votes behind it do).
    let beforeCommitVotes: (@Sendable () -> Void)?

    /// While set, reads fail as `unavailable`, as a database that went away fails this
    /// process; writes still commit (another server's, in the story).
    let unavailable = Locked(false)
    /// While set, the change source fails as `unavailable` too.
    let changesUnavailable = Locked(false)

    /// An empty store; `beforeCommitVotes`, when given, runs as each `commitVotes` begins.
    init(beforeCommitVotes: (@Sendable () -> Void)? = nil) {
        self.beforeCommitVotes = beforeCommitVotes
    }

    var location: String { "memory" }

    /// Throws once the store is closed.
    func checkOpen() throws {
        if closed.withLock({ $0 }) { throw StoreError(.closed, at: location) }
    }

    func close() {
        // Taking the writer's turn waits for a write running now.
        writer.withLock { _ in closed.withLock { $0 = true } }
    }

    func read<T>(_ body: (any StoreReading) throws -> T) throws -> T {
        try checkOpen()
        try checkAvailable()
        return try body(MemorySession(state.withLock { $0 }))
    }

    func readSingle<T>(_ body: (any StoreReading) throws -> T) throws -> T {
        try checkOpen()
        try checkAvailable()
        return try body(MemorySession(state.withLock { $0 }, single: true))
    }

    /// Throws while ``unavailable`` is set.
    func checkAvailable() throws {
        if unavailable.withLock({ $0 }) { throw StoreError(.unavailable("switched off by the test"), at: location) }
    }

    func commitVotes(_ deltas: [VoteDelta], at time: Timestamp) throws -> [Poster] {
        beforeCommitVotes?()
        return try write { try $0.addVotes(deltas, at: time) }
    }

    func write<T>(_ body: (any StoreWriting) throws -> T) throws -> T {
        try writer.withLock { writes in
            try checkOpen()
            writes += 1
            let session = MemorySession(state.withLock { $0 })
            let result = try body(session)
            session.state.version += 1
            state.withLock { $0 = session.state }
            return result
        }
    }

    var changes: any ChangeSource { MemoryChanges(store: self) }

    func integrityProblems() throws -> [String] {
        try checkOpen()
        let state = state.withLock { $0 }
        var problems: [String] = []
        for poster in state.posters.values.sorted(by: { $0.id < $1.id }) {
            for image in poster.images where state.blobs[image.digest] == nil {
                problems.append("poster \(poster.id) references a missing blob row \(image.digest.hex)")
            }
            if state.keys[poster.id] == nil { problems.append("poster \(poster.id) has no search key; search cannot find it") }
        }
        return problems
    }

    var version: Int64 { state.withLock { $0.version } }
}

/// Polls the write counter, as SQLite's backend polls its commit counter.
struct MemoryChanges: ChangeSource {
    let store: MemoryStore

    func currentVersion() throws -> StoreVersion {
        try store.checkOpen()
        if store.changesUnavailable.withLock({ $0 }) { throw StoreError(.unavailable("switched off by the test"), at: store.location) }
        return StoreVersion(store.version)
    }

    func nextChange(after version: StoreVersion, interval: Duration, clock: any Clock<Duration>) async throws -> StoreVersion {
        while true {
            try await clock.sleep(for: interval)
            let now = try currentVersion()
            if now != version { return now }
        }
    }
}

/// One read or write of the memory backend.
final class MemorySession: StoreWriting {
    var state: MemoryStore.State
    /// Whether this is a `readSingle`: one call reading one thing, never a search.
    private let single: Bool
    /// The calls made so far (a `readSingle` allows one).
    private var calls: [String] = []
    /// The highest id `storeSearch` was given in this transaction.
    private var lastStoredSearchID: Int64 = 0

    init(_ state: MemoryStore.State, single: Bool = false) {
        self.state = state
        self.single = single
    }

    /// Records a reading call; in a `readSingle`, throws at a second call or a search.
    private func reading(_ call: String, search: Bool = false) throws {
        calls.append(call)
        guard single else { return }
        if search { throw MemoryStoreError("readSingle's body searched (\(call)); a search reads in batches, so it needs read") }
        if calls.count > 1 {
            throw MemoryStoreError("readSingle's body made \(calls.count) calls (\(calls.joined(separator: ", "))); it may make one")
        }
    }

    func posters(ids: [Int64]) throws -> [Poster] {
        try reading("posters(ids:)")
        var seen: Set<Int64> = []
        return ids.compactMap { seen.insert($0).inserted ? state.posters[$0] : nil }
    }

    private func ordered(_ order: FeedOrder) -> [Poster] {
        state.posters.values.sorted { order.rank(of: FeedPosition($0)) > order.rank(of: FeedPosition($1)) }
    }

    func page(order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int) throws -> [Poster] {
        try reading("page")
        var list = ordered(order)
        if let after {
            list.removeAll { order.rank(of: FeedPosition($0)) >= order.rank(of: after) }
        }
        return Array(list.dropFirst(offset).prefix(limit))
    }

    func count() throws -> Int {
        try reading("count")
        return state.posters.count
    }

    func storedImage(source: Digest, encodingKey: String) throws -> StoredImage? {
        try reading("storedImage(source:encodingKey:)")
        return state.uploads["\(source.hex) \(encodingKey)"].flatMap { state.blobs[$0] }
    }

    func storedImage(digest: Digest) throws -> StoredImage? {
        try reading("storedImage(digest:)")
        return state.blobs[digest]
    }

    func blobRowsPresent(_ digests: [Digest]) throws -> Set<Digest> {
        try reading("blobRowsPresent")
        return Set(digests.filter { state.blobs[$0] != nil })
    }

    func blobRows() throws -> [StoredImage] {
        try reading("blobRows")
        return state.blobs.values.sorted { $0.digest.hex < $1.digest.hex }
    }

    func posterIDs(using digest: Digest) throws -> [Int64] {
        try reading("posterIDs(using:)")
        return state.posters.values.filter { $0.images.contains { $0.digest == digest } }.map(\.id).sorted()
    }

    func posterIDs(image1: Digest, image2: Digest, contents: String) throws -> [Int64] {
        try reading("posterIDs(image1:image2:contents:)")
        return state.posters.values.filter {
            $0.images[0].digest == image1 && $0.images[1].digest == image2
                && $0.contents.utf8.elementsEqual(contents.utf8)  // byte for byte, as the databases compare
        }
        .map(\.id).sorted()
    }

    private func entry(_ id: Int64) -> SearchEntry? {
        guard let record = state.keys[id], let poster = state.posters[id] else { return nil }
        return SearchEntry(id: id, key: record.key, votes: poster.totalVotes, score: poster.trendingScore)
    }

    private func holds(_ id: Int64, _ terms: [IndexTerm]) -> Bool {
        guard let tokens = state.keys[id]?.tokens else { return false }
        return terms.allSatisfy { term in term.isPrefix ? tokens.contains { $0.hasPrefix(term.token) } : tokens.contains(term.token) }
    }

    func searchCandidates(_ terms: [IndexTerm], below: Int64?, visit: (SearchEntry) throws -> Bool) throws {
        try reading("searchCandidates", search: true)
        for id in state.keys.keys.sorted(by: >) where id < (below ?? Int64.max) && holds(id, terms) {
            guard let entry = entry(id) else { continue }
            guard try visit(entry) else { return }
        }
    }

    func searchCandidateIDs(_ terms: [IndexTerm], limit: Int) throws -> [Int64] {
        try reading("searchCandidateIDs", search: true)
        return Array(state.keys.keys.filter { holds($0, terms) }.prefix(limit))
    }

    func searchEntries(ids: [Int64]) throws -> [SearchEntry] {
        try reading("searchEntries", search: true)
        return ids.compactMap(entry)
    }

    func voteLogMarks() throws -> VoteLogMarks {
        try reading("voteLogMarks")
        return VoteLogMarks(last: state.lastBatch, oldest: state.oldestMark)
    }

    func keysAsOf(mark: Int64, order: FeedOrder) throws -> [Int64: Int] {
        try reading("keysAsOf")
        guard order != .new else { return [:] }
        var keys: [Int64: Int] = [:]
        for entry in state.voteLog where entry.batch > mark && state.posters[entry.id] != nil && keys[entry.id] == nil {
            keys[entry.id] = order == .trending ? Int(entry.scoreBefore) : entry.before
        }
        return keys
    }

    func pruneVoteLog(now: Timestamp, keeping seconds: Int64) throws {
        state.voteLogTimes.append((now.secondsSince1970, state.lastBatch))
        let cutoff = now.secondsSince1970 - seconds
        guard let prunable = state.voteLogTimes.filter({ $0.at <= cutoff }).map(\.batch).max(), prunable > state.oldestMark else { return }
        state.voteLog.removeAll { $0.batch <= prunable }
        state.voteLogTimes.removeAll { $0.at < cutoff }
        state.oldestMark = prunable
    }

    func searchEntriesByVotes(after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws {
        try reading("searchEntriesByVotes", search: true)
        try searchEntries(order: .popular, after: after, visit: visit)
    }

    func searchEntriesByScore(after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws {
        try reading("searchEntriesByScore", search: true)
        try searchEntries(order: .trending, after: after, visit: visit)
    }

    private func searchEntries(order: FeedOrder, after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws {
        for poster in try page(order: order, after: after, offset: 0, limit: Int.max) {
            guard let entry = entry(poster.id) else { continue }
            guard try visit(entry) else { return }
        }
    }

    func lockBlobs(_ digests: [Digest]) throws {}

    func insertBlob(_ image: StoredImage, source: Digest?, encodingKey: String) throws {
        if state.blobs[image.digest] == nil { state.blobs[image.digest] = image }
        if let source { state.uploads["\(source.hex) \(encodingKey)"] = image.digest }
    }

    func insertPoster(_ poster: NewPoster, createdAt: Timestamp, search: SearchRecord) throws -> Int64 {
        for image in poster.images where state.blobs[image.digest] == nil {
            throw MemoryStoreError("poster references a missing blob row \(image.digest.hex)")
        }
        state.lastID += 1
        state.posters[state.lastID] = Poster(
            id: state.lastID, contents: poster.contents, hashtags: poster.hashtags, good1: 0, good2: 0, createdAt: createdAt,
            images: poster.images, alt1: poster.alt1, alt2: poster.alt2)
        state.keys[state.lastID] = search
        return state.lastID
    }

    private func addVotes(id: Int64, good1: Int, good2: Int, start: Int64, at time: Timestamp) throws -> Bool {
        guard var poster = state.posters[id], state.hidden[id] == nil else { return false }
        poster.good1 += good1
        poster.good2 += good2
        poster.trendingScore = Trending.adding(Trending.weight(count: good1 + good2, at: time), to: poster.trendingScore)
        state.posters[id] = poster
        addToBucket(
            TimelineRow(posterID: id, bucket: TimelineBucket(start: Timestamp(secondsSince1970: start), good1: good1, good2: good2)))
        return true
    }

    private func addToBucket(_ row: TimelineRow) {
        let key = Timeline.TimelineKey(posterID: row.posterID, start: row.bucket.start.secondsSince1970)
        var bucket = state.buckets[key] ?? TimelineBucket(start: row.bucket.start, good1: 0, good2: 0)
        bucket.good1 += row.bucket.good1
        bucket.good2 += row.bucket.good2
        state.buckets[key] = bucket
    }

    func addVotes(_ deltas: [VoteDelta], at time: Timestamp) throws -> [Poster] {
        for (earlier, later) in zip(deltas, deltas.dropFirst()) where earlier.id >= later.id {
            throw MemoryStoreError("vote deltas must have distinct ascending ids; \(later.id) came after \(earlier.id)")
        }
        let start = Timeline.minuteStart(of: time)
        var logged: [(id: Int64, before: Int, scoreBefore: Int64)] = []
        for delta in deltas {
            let scoreBefore = state.posters[delta.id]?.trendingScore ?? 0
            guard try addVotes(id: delta.id, good1: delta.good1, good2: delta.good2, start: start, at: time) else { continue }
            // Found just above.
            logged.append((delta.id, state.posters[delta.id]!.totalVotes - delta.good1 - delta.good2, scoreBefore))
        }
        guard !logged.isEmpty else { return [] }
        state.lastBatch += 1
        for entry in logged { state.voteLog.append((state.lastBatch, entry.id, entry.before, entry.scoreBefore)) }
        let voted = logged.map(\.id)
        if state.lastBatch % VoteSnapshot.pruneEvery == 0 { try pruneVoteLog(now: time, keeping: VoteSnapshot.retention) }
        return voted.map { state.posters[$0]! }  // each was found just above
    }

    func timelineRows(posters ids: ClosedRange<Int64>) throws -> [TimelineRow] {
        try reading("timelineRows")
        return state.buckets.filter { ids.contains($0.key.posterID) }.sorted { $0.key < $1.key }.map {
            TimelineRow(posterID: $0.key.posterID, bucket: $0.value)
        }
    }

    func insertTimelineRows(_ rows: [TimelineRow]) throws {
        for row in rows {
            guard state.posters[row.posterID] != nil else {
                throw MemoryStoreError("a timeline row names poster \(row.posterID), which does not exist")
            }
            addToBucket(row)
        }
    }

    func compactTimelines(now: Timestamp) throws {
        let rows = state.buckets.map { TimelineRow(posterID: $0.key.posterID, bucket: $0.value) }
        state.buckets = [:]
        for row in Timeline.compacted(rows, at: now) { addToBucket(row) }
    }

    func updateText(id: Int64, contents: String, hashtags: [String], search: SearchRecord) throws -> Bool {
        guard state.posters[id] != nil else { return false }
        state.posters[id]!.contents = contents  // checked just above
        state.posters[id]!.hashtags = hashtags
        state.keys[id] = search
        return true
    }

    func deletePoster(id: Int64) throws -> Bool {
        state.keys[id] = nil
        state.hidden[id] = nil
        state.reports[id] = nil
        state.cleared = state.cleared.filter { $0.posterID != id }
        state.buckets = state.buckets.filter { $0.key.posterID != id }
        return state.posters.removeValue(forKey: id) != nil
    }

    func deleteBlobRow(_ digest: Digest) throws {
        state.blobs[digest] = nil
        state.hashes[digest] = nil
        state.uploads = state.uploads.filter { $0.value != digest }
    }

    func unreferencedBlobRows() throws -> [Digest] {
        let used = Set(state.posters.values.flatMap { $0.images.map(\.digest) })
        return state.blobs.keys.filter { !used.contains($0) }.sorted { $0.hex < $1.hex }
    }

    func clearSearch() throws {
        state.keys = [:]
    }

    func storeSearch(ids: [Int64], search: [SearchRecord]) throws {
        for id in ids {
            guard id > lastStoredSearchID else {
                throw MemoryStoreError("storeSearch ids must ascend across a transaction; \(id) came after \(lastStoredSearchID)")
            }
            guard state.posters[id] != nil else { throw MemoryStoreError("storeSearch was given poster \(id), which does not exist") }
            lastStoredSearchID = id
        }
        for (id, record) in zip(ids, search) { state.keys[id] = record }
    }

    func posters(afterID: Int64, limit: Int) throws -> [Poster] {
        try reading("posters(afterID:limit:)")
        return Array(state.posters.values.filter { $0.id > afterID }.sorted { $0.id < $1.id }.prefix(limit))
    }

    func blobRecords(after: Digest?, limit: Int) throws -> [BlobRecord] {
        try reading("blobRecords")
        let images = state.blobs.values.filter { $0.digest.hex > (after?.hex ?? "") }.sorted { $0.digest.hex < $1.digest.hex }
        return images.prefix(limit).map { image in
            let uploads = state.uploads.filter { $0.value == image.digest }.keys.compactMap { key -> UploadKey? in
                let parts = key.split(separator: " ", maxSplits: 1)
                return Digest(hex: String(parts[0])).map { UploadKey(source: $0, encodingKey: parts.count > 1 ? String(parts[1]) : "") }
            }
            return BlobRecord(image: image, uploads: uploads.sorted(), perceptualHash: state.hashes[image.digest])
        }
    }

    func lastPosterID() throws -> Int64 {
        try reading("lastPosterID")
        return state.lastID
    }

    func insertBlobs(_ records: [BlobRecord]) throws {
        for record in records {
            try insertBlob(record.image, source: nil, encodingKey: "")
            for upload in record.uploads { try insertBlob(record.image, source: upload.source, encodingKey: upload.encodingKey) }
            if let hash = record.perceptualHash { try setPerceptualHashes([record.image.digest: hash]) }
        }
    }

    func insertPosters(_ records: [PosterRecord]) throws {
        for record in records {
            let poster = record.poster
            if state.posters[poster.id] != nil { throw MemoryStoreError("poster \(poster.id) already exists") }
            for image in poster.images where state.blobs[image.digest] == nil {
                throw MemoryStoreError("poster references a missing blob row \(image.digest.hex)")
            }
            state.posters[poster.id] = poster
            state.keys[poster.id] = record.search
            state.lastID = max(state.lastID, poster.id)
        }
    }

    func reservePosterIDs(through id: Int64) throws { state.lastID = max(state.lastID, id) }

    // MARK: Moderation

    func hiddenPosters() throws -> [HiddenPoster] {
        try reading("hiddenPosters")
        return state.hidden.map { HiddenPoster(posterID: $0.key, since: $0.value) }.sorted { $0.posterID < $1.posterID }
    }

    func reports(posterID: Int64?) throws -> [Report] {
        try reading("reports")
        return state.reports.values.flatMap(\.values).filter { posterID == nil || $0.posterID == posterID }
            .sorted {
                ($0.posterID, $0.createdAt.secondsSince1970, $0.reporter) < ($1.posterID, $1.createdAt.secondsSince1970, $1.reporter)
            }
    }

    func clearedReporters(posterID: Int64?) throws -> [ClearedReporter] {
        try reading("clearedReporters")
        return state.cleared.filter { posterID == nil || $0.posterID == posterID }.sorted {
            ($0.posterID, $0.reporter) < ($1.posterID, $1.reporter)
        }
    }

    func auditEntries(posterID: Int64?, beforeID: Int64?, limit: Int) throws -> [AuditEntry] {
        try reading("auditEntries")
        let entries = state.audit.values.filter { (posterID == nil || $0.posterID == posterID) && $0.id < (beforeID ?? .max) }
        return Array(entries.sorted { $0.id > $1.id }.prefix(max(0, limit)))
    }

    /// Throws unless the poster exists, as a database's foreign key would.
    private func requirePoster(_ id: Int64) throws {
        guard state.posters[id] != nil else { throw MemoryStoreError("poster \(id) does not exist") }
    }

    func insertReport(_ report: Report) throws -> Bool {
        try requirePoster(report.posterID)
        guard state.reports[report.posterID]?[report.reporter] == nil else { return false }
        state.reports[report.posterID, default: [:]][report.reporter] = report
        return true
    }

    func deleteReports(posterID: Int64) throws { state.reports[posterID] = nil }

    func insertClearedReporters(_ cleared: [ClearedReporter]) throws {
        for entry in cleared {
            try requirePoster(entry.posterID)
            state.cleared.insert(entry)
        }
    }

    func setHidden(posterID: Int64, since: Timestamp?) throws {
        try requirePoster(posterID)
        if let since {
            if state.hidden[posterID] == nil { state.hidden[posterID] = since }
        } else {
            state.hidden[posterID] = nil
        }
    }

    func appendAudit(_ entry: AuditEntry) throws -> Int64 {
        state.lastAuditID += 1
        var stored = entry
        stored.id = state.lastAuditID
        state.audit[stored.id] = stored
        return stored.id
    }

    func insertAudit(_ entries: [AuditEntry]) throws {
        for entry in entries where state.audit[entry.id] == nil {
            state.audit[entry.id] = entry
            state.lastAuditID = max(state.lastAuditID, entry.id)
        }
    }

    // MARK: Blocked images

    func perceptualHashes(_ digests: [Digest]) throws -> [Digest: PerceptualHash] {
        try reading("perceptualHashes")
        return state.hashes.filter { digests.contains($0.key) }
    }

    func blockedImages() throws -> [BlockedImage] {
        try reading("blockedImages")
        return state.blocked
    }

    func setPerceptualHashes(_ hashes: [Digest: PerceptualHash]) throws {
        for (digest, hash) in hashes where state.blobs[digest] != nil { state.hashes[digest] = hash }
    }

    func insertBlockedImage(_ entry: NewBlockedImage, createdAt: Timestamp) throws -> BlockedImage {
        if let present = state.blocked.first(where: { $0.digest == entry.digest }) { return present }
        state.lastBlockedID += 1
        let stored = BlockedImage(
            id: state.lastBlockedID, digest: entry.digest, perceptualHash: entry.perceptualHash, note: entry.note, createdAt: createdAt)
        state.blocked.append(stored)
        return stored
    }

    func deleteBlockedImage(id: Int64) throws -> Bool {
        guard let index = state.blocked.firstIndex(where: { $0.id == id }) else { return false }
        state.blocked.remove(at: index)
        return true
    }

    func postProofKey(storing candidate: [UInt8]) throws -> [UInt8] {
        if state.postProofKey == nil { state.postProofKey = candidate }
        return state.postProofKey ?? candidate
    }

    func spendPostProof(id: String, expiresAt: Timestamp, now: Timestamp) throws -> Bool {
        state.spentProofs = state.spentProofs.filter { $0.value > now }
        guard state.spentProofs[id] == nil else { return false }
        state.spentProofs[id] = expiresAt
        return true
    }
}

struct MemoryStoreError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
