/// The state of one import while it runs: a window of entries in source order, the images
/// they wait for, the batch about to be committed, and the report so far.
///
/// Lives in (and is used only by) the task that called `Importer.run`, which coordinates:
/// it reads entries, starts image tasks, commits batches. Decoding, encoding and hashing run
/// only in the child tasks.
final class ImportRun {
    private let board: Board
    private let options: ImportOptions
    private let total: Int
    /// Whether prepared images are kept by path for later entries (manifests).
    private let reusesImages: Bool
    private let progress: @Sendable (ImportProgress) -> Void
    private let memo = ImageMemo()
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant

    /// Entries read and not yet dealt with are `window[head...]`.
    private var window: [ImportEntry] = []
    private var head = 0
    /// Every image path an entry in the window (or, for manifests, an earlier one) needs.
    private var images: [String: ImageState] = [:]
    /// Paths waiting for a task are `queue[queueHead...]`.
    private var queue: [String] = []
    private var queueHead = 0
    private var inFlight = 0

    /// Entries dealt with since the last commit, in source order (failures too, so the
    /// report keeps that order), and the distinct images of their posters.
    private var batch: [(source: String, poster: Result<NewPoster, Failure>)] = []
    private var batchImages: [Digest: Board.StoredUpload] = [:]
    /// Blobs staged by image tasks whose posters have not joined a batch (yet): what the import
    /// removes at its end is what no batch published.
    private var unbatched: [String: StagedBlob] = [:]
    private var lastCommit: ContinuousClock.Instant
    /// Whether the batch holds a blob staged by this import (a new image), which the batch
    /// publishes: such a batch is committed as soon as the last commit is done (see `schedule`).
    private var batchStagesBlobs = false
    /// The batch being committed in the background while the next one is read, if any, and
    /// whether that commit has ended.
    private var committing:
        (
            entries: [(source: String, poster: Result<NewPoster, Failure>)], task: Task<[PosterImportOutcome], any Error>,
            ended: Locked<Bool>
        )?
    /// Dry run only: posters that would have been added, to skip later identical ones.
    private var wouldAdd: Set<Board.ImportIdentity> = []
    /// Where batches commit (see `commit(_:on:ended:)`): one thread for the whole import, so
    /// SQLite's memory stays in that thread's malloc arena (see ``SerialThread``).
    private let committer = SerialThread()

    private(set) var report = ImportReport()
    private var done = 0
    private var imagesRead = 0
    private var lastProgress: ContinuousClock.Instant?

    /// A batch holding new images is committed once this old, if no commit is under way
    /// (bounds the commits of an import of small images to about ten a second).
    static let imageBatchInterval = Duration.milliseconds(100)

    /// Past this many remembered paths, those no waiting entry needs are forgotten.
    static let maximumRememberedImages = 100_000

    private struct Failure: KindedError {
        let reason: String

        var kind: ErrorKind { .invalidInput }
        var description: String { reason }
    }

    private enum ImageState {
        case waiting
        case ready(Result<Board.StoredUpload, any Error>)
    }

    init(board: Board, options: ImportOptions, total: Int, reusesImages: Bool, progress: @escaping @Sendable (ImportProgress) -> Void) {
        self.board = board
        self.options = options
        self.total = total
        self.reusesImages = reusesImages
        self.progress = progress
        self.started = clock.now
        self.lastCommit = started
    }

    private typealias ImageResult = (path: String, result: Result<Board.StoredUpload, any Error>)

    /// Runs the whole import from `reader`.
    func execute(_ reader: inout any ImportReader) async throws {
        // Every commit has ended when this returns (below), so the thread has nothing left.
        defer { committer.finish() }
        do {
            try await coordinate(&reader)
        } catch {
            // Let a commit under way finish (or fail) before reporting, so nothing writes on
            // after the import has returned.
            _ = try? await committing?.task.value
            board.discardStaged(Array(unbatched.values) + batchImages.values.compactMap(\.staged))
            throw error
        }
        board.discardStaged(Array(unbatched.values))
    }

    private func coordinate(_ reader: inout any ImportReader) async throws {
        try await withThrowingTaskGroup(of: ImageResult.self) { group in
            do {
                try await schedule(&reader, &group)
            } catch {
                // Images still being prepared may stage blobs: collect them, so the import
                // removes their temporary files before it reports the failure.
                while let finished = try? await group.next() { received(finished) }
                throw error
            }
        }
    }

    private func schedule(_ reader: inout any ImportReader, _ group: inout ThrowingTaskGroup<ImageResult, any Error>) async throws {
        var exhausted = false
        while true {
            // Read ahead while the window has room and the image queue is short, so
            // memory stays bounded however long the source is.
            while !exhausted && window.count - head < options.window && queue.count - queueHead < options.jobs {
                guard let entry = try reader.next() else {
                    exhausted = true
                    break
                }
                admit(entry)
            }
            launch(into: &group)
            try takeReadyEntries()
            if exhausted && head == window.count && inFlight == 0 { break }
            if batch.count >= options.batchSize || (!batch.isEmpty && clock.now - lastCommit >= options.batchInterval) {
                try await commit()
            } else if batchStagesBlobs && clock.now - lastCommit >= Self.imageBatchInterval && committing?.ended.withLock({ $0 }) ?? true {
                // New images cost far more than committing them: publish and commit them while
                // the next images decode, so the last batch — which nothing overlaps — holds
                // only the last posters' blobs, whatever the number of jobs.
                try await commit()
            }
            report(force: false)
            // Wait for an image when there is nothing else to do: every job is busy, the
            // window is full, or the source is read to its end.
            if inFlight > 0 && (inFlight >= options.jobs || window.count - head >= options.window || exhausted) {
                guard let finished = try await group.next() else { break }
                received(finished)
            }
        }
        try await commit()
        try await finishCommit()
        report(force: true)
    }

    /// Records an image task's result.
    private func received(_ finished: ImageResult) {
        inFlight -= 1
        imagesRead += 1
        images[finished.path] = .ready(finished.result)
        if case .success(let image) = finished.result, let staged = image.staged, let temporary = staged.temporary {
            unbatched[temporary] = staged
        }
    }

    /// Adds an entry to the window and queues the images it needs that are not known yet. A
    /// poster whose text is over ``PosterTextLimits`` fails here, before its images are read.
    private func admit(_ entry: ImportEntry) {
        guard case .poster(let candidate) = entry else { return window.append(entry) }
        do {
            try PosterTextLimits.check(contents: candidate.contents, hashtags: candidate.hashtags)
        } catch {
            return window.append(.failed(source: candidate.source, reason: error.description))
        }
        window.append(entry)
        for image in candidate.images where images[image.path] == nil {
            images[image.path] = .waiting
            queue.append(image.path)
        }
    }

    /// Starts image tasks from the queue while fewer than `jobs` run.
    private func launch(into group: inout ThrowingTaskGroup<ImageResult, any Error>) {
        while inFlight < options.jobs && queueHead < queue.count {
            let path = queue[queueHead]
            queueHead += 1
            inFlight += 1
            let board = self.board
            let memo = self.memo
            let writing = !options.dryRun
            group.addTask {
                (path, Result { try board.prepareImport(path, writing: writing, memo: memo) })
            }
        }
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        }
    }

    /// Moves the entries at the head of the window whose images are all ready into the batch
    /// (or the report, for failures), keeping source order.
    private func takeReadyEntries() throws {
        scan: while head < window.count {
            switch window[head] {
            case .ignored:
                break
            case .failed(let source, let reason):
                batch.append((source, .failure(Failure(reason: reason))))
            case .poster(let candidate):
                var prepared: [Board.StoredUpload] = []
                for image in candidate.images {
                    guard case .ready(let result)? = images[image.path] else { break scan }
                    switch result {
                    case .success(let ready):
                        prepared.append(ready)
                    case .failure(let error as ImageError):
                        prepared.removeAll()
                        batch.append((candidate.source, .failure(Failure(reason: "\(error.about(image.label))"))))
                    case .failure(let error as ImageRefusal):
                        // A blocked picture: this poster's fault, not the import's.
                        prepared.removeAll()
                        batch.append((candidate.source, .failure(Failure(reason: "\(error)"))))
                    case .failure(let error):
                        // Not the image's fault (the disk or the database failed): stop the import.
                        throw error
                    }
                    if prepared.isEmpty { break }
                }
                if prepared.count == 2 {
                    let poster = NewPoster(
                        contents: candidate.contents, hashtags: candidate.hashtags, images: prepared.map(\.stored),
                        sources: prepared.map(\.prepared.source))
                    batch.append((candidate.source, .success(poster)))
                    for image in prepared {
                        batchImages[image.stored.digest] = image
                        if let temporary = image.staged?.temporary {
                            unbatched.removeValue(forKey: temporary)
                            batchStagesBlobs = true
                        }
                    }
                }
                if !reusesImages {
                    for image in candidate.images { images.removeValue(forKey: image.path) }
                }
            }
            head += 1
            done += 1
        }
        if head >= 1024 && head * 2 >= window.count {
            window.removeFirst(head)
            head = 0
        }
        if images.count > Self.maximumRememberedImages { forgetUnneededImages() }
    }

    /// Forgets remembered images no waiting entry needs (a later line naming one reads it
    /// again, and finds it stored without decoding).
    private func forgetUnneededImages() {
        var needed: Set<String> = []
        for case .poster(let candidate) in window[head...] {
            for image in candidate.images { needed.insert(image.path) }
        }
        images = images.filter { needed.contains($0.key) }
    }

    /// Starts committing the batch's posters in one transaction, in the background, once the
    /// previous commit has finished (so batches commit one at a time, in order, while the
    /// next batch is read). A dry run only looks the posters up.
    ///
    /// What this batch's commit needs is prepared before waiting for the commit under way, and
    /// that commit's outcomes are recorded after this batch is handed over: the committing
    /// thread, which bounds a manifest import, waits for neither. (Done in between, they left
    /// it idle about 60 ms a batch of 20,000: 3 s of a million-line import's 50.)
    private func commit() async throws {
        guard !batch.isEmpty else { return }
        let entries = batch
        let posters = entries.compactMap { try? $0.poster.get() }
        guard !options.dryRun else {
            try await finishCommit()
            takeBatch()
            return record(entries, try dryRunOutcomes(posters))
        }
        let images = Array(batchImages.values)
        // On every core, while the commit under way holds the committing thread (with readings,
        // the records were most of the reading thread's time).
        let records = SearchRecord.records(of: posters)
        let board = self.board
        let blobRecords = Board.blobRecords(posters, encodingKey: board.codec.encoding.key)
        let work: @Sendable () throws -> [PosterImportOutcome] = {
            posters.isEmpty ? [] : try board.commitImport(posters, records: records, blobRecords: blobRecords, images: images)
        }
        // The batch stays in place until then: if the commit under way failed, the import
        // removes this batch's staged blobs (see `execute`).
        let previous = try await waitForCommit()
        takeBatch()
        let ended = Locked(false)
        let committer = self.committer
        let task = Task.detached { try await ImportRun.commit(work, on: committer, ended: ended) }
        committing = (entries, task, ended)
        if let previous { record(previous.entries, previous.outcomes) }
    }

    /// Empties the batch, which a commit has taken.
    private func takeBatch() {
        batch.removeAll(keepingCapacity: true)
        batchImages.removeAll(keepingCapacity: true)
        batchStagesBlobs = false
        lastCommit = clock.now
    }

    /// Waits for the commit under way, if any, and records its outcomes.
    private func finishCommit() async throws {
        if let finished = try await waitForCommit() { record(finished.entries, finished.outcomes) }
    }

    /// Waits for the commit under way, if any: its entries and their outcomes.
    private func waitForCommit() async throws -> (
        entries: [(source: String, poster: Result<NewPoster, Failure>)], outcomes: [(ImportStatus, Int64?)]
    )? {
        guard let (entries, task, _) = committing else { return nil }
        committing = nil
        let outcomes = try await task.value.map { outcome -> (ImportStatus, Int64?) in
            switch outcome {
            case .inserted(let id): (.imported, id)
            case .existing(let id): (.skipped, id)
            }
        }
        return (entries, outcomes)
    }

    /// What committing would do; a poster that is not stored yet has no id.
    private func dryRunOutcomes(_ posters: [NewPoster]) throws -> [(ImportStatus, Int64?)] {
        try zip(posters, board.matchingPosters(posters)).map { poster, stored in
            if let id = stored { return (.skipped, id) }
            // Not stored: it would be added, unless an identical one earlier would be (by the
            // same rule as committing: contents byte for byte).
            return (wouldAdd.insert(Board.ImportIdentity(poster)).inserted ? .imported : .skipped, nil)
        }
    }

    /// Records each entry of a committed batch, in source order, with its poster's outcome.
    private func record(_ entries: [(source: String, poster: Result<NewPoster, Failure>)], _ outcomes: [(ImportStatus, Int64?)]) {
        var next = outcomes.makeIterator()
        for (source, poster) in entries {
            let item: ImportItem
            switch poster {
            case .failure(let failure):
                item = ImportItem(source: source, status: .failed, error: failure.reason)
            case .success:
                // There is one outcome per poster, in order.
                let (status, id) = next.next()!
                item = ImportItem(source: source, status: status, id: id)
            }
            report.record(item, listed: options.listsEveryItem)
        }
    }

    /// Calls the progress handler, at most ten times a second unless `force`.
    private func report(force: Bool) {
        let now = clock.now
        if !force, let last = lastProgress, now - last < .milliseconds(100) { return }
        lastProgress = now
        progress(ImportProgress(done: done, total: total, images: imagesRead, elapsed: now - started))
    }

    /// Runs a batch's commit on `thread`, the import's own, so that its waits (for blob
    /// flushes, folder flushes, SQLite's lock) never hold one of the task pool's threads,
    /// which decode images; `ended` is set once it has returned or thrown.
    private static func commit(
        _ work: @escaping @Sendable () throws -> [PosterImportOutcome], on thread: SerialThread, ended: Locked<Bool>
    ) async throws -> [PosterImportOutcome] {
        try await withCheckedThrowingContinuation { continuation in
            thread.async {
                let outcome = Result { try work() }
                // The batch's rows, records and SQLite's pages for them are freed by now.
                MallocTuning.giveBackFreePages()
                ended.withLock { $0 = true }
                continuation.resume(with: outcome)
            }
        }
    }
}
