import Foundation
import Testing

@testable import TenbinKit

/// Timelines on every backend: votes land in the minute of their commit, in the same
/// transaction as the counts, so a timeline's totals are always its poster's counts — under
/// concurrent votes, after compaction, after a copy — and deleting a poster deletes them.
@Suite(.timeLimit(.minutes(10))) struct TimelineContractTests {
    /// 2025-11-29T21:00:00Z: a whole hour, so the minutes below fall where the test says.
    static let start: Int64 = 1_764_450_000

    /// A board whose clock reads `clock`.
    static func board(_ backend: BackendUnderTest, _ store: TemporaryStore, clock: Locked<Int64>) throws -> Board {
        var configuration = store.configuration()
        configuration.now = { Timestamp(secondsSince1970: clock.withLock { $0 }) }
        return Board(configuration, store: try backend.make(store.path), blobs: BlobStore(storeFolder: store.path))
    }

    /// Every poster's day view summed equals its counts.
    static func expectTotalsEqualCounts(_ board: Board, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for poster in try board.posters(limit: 1000) {
            for size in TimelineBucketSize.allCases {
                let buckets = try board.timeline(poster: poster.id, bucket: size)
                #expect(
                    buckets.reduce(0) { $0 + $1.good1 } == poster.good1 && buckets.reduce(0) { $0 + $1.good2 } == poster.good2,
                    "poster \(poster.id) \(size): \(buckets) against \(poster.good1)/\(poster.good2)", sourceLocation: sourceLocation)
            }
        }
    }

    static func bucket(_ offset: Int64, _ good1: Int, _ good2: Int) -> TimelineBucket {
        TimelineBucket(start: Timestamp(secondsSince1970: start + offset), good1: good1, good2: good2)
    }

    @Test(arguments: BackendUnderTest.all)
    func votesLandInTheMinuteOfTheirCommitAndEachViewSumsThem(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        let clock = Locked(Self.start + 5)
        let board = try Self.board(backend, store, clock: clock)
        let posters = try board.quickPost([("a", []), ("b", [])])
        #expect(try board.timeline(poster: posters[0].id, bucket: .minute).isEmpty)
        try board.vote(id: posters[0].id, side: .first, times: 3)
        clock.withLock { $0 = Self.start + 50 }
        _ = try await board.castVote(id: posters[0].id, side: .second)
        clock.withLock { $0 = Self.start + 61 }
        try board.vote(id: posters[0].id, side: .second, times: 2)
        clock.withLock { $0 = Self.start + 3600 + 7 }
        _ = try await board.castVote(id: posters[0].id, side: .first, times: 4)
        try board.vote(id: posters[1].id, side: .first)
        #expect(
            try board.timeline(poster: posters[0].id, bucket: .minute) == [
                Self.bucket(0, 3, 1), Self.bucket(60, 0, 2), Self.bucket(3600, 4, 0),
            ])
        #expect(try board.timeline(poster: posters[0].id, bucket: .hour) == [Self.bucket(0, 3, 3), Self.bucket(3600, 4, 0)])
        // The day of 2025-11-29 began 21 hours before the start.
        #expect(try board.timeline(poster: posters[0].id, bucket: .day) == [Self.bucket(-21 * 3600, 7, 3)])
        #expect(try board.timeline(poster: posters[1].id, bucket: .minute) == [Self.bucket(3600, 1, 0)])
        try Self.expectTotalsEqualCounts(board)
        #expect(throws: BoardError.noSuchPoster(posters[1].id + 1)) { try board.timeline(poster: posters[1].id + 1, bucket: .day) }
    }

    @Test(arguments: BackendUnderTest.all)
    func concurrentVotesKeepEveryTimelineEqualToItsCounts(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        let clock = Locked(Self.start)
        let board = try Self.board(backend, store, clock: clock)
        let posters = try board.quickPost([("hot", []), ("cold", []), ("warm", [])])
        // Direct votes from threads and group-committed ones from tasks, while the clock moves
        // on by 20 seconds a vote, so commits fall in many minutes.
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<6 {
                group.addTask {
                    for index in 0..<60 {
                        clock.withLock { $0 += 20 }
                        let id = posters[(worker + index) % posters.count].id
                        let side: VoteSide = index % 3 == 0 ? .second : .first
                        if worker % 2 == 0 {
                            _ = try? board.vote(id: id, side: side, times: worker + 1)
                        } else {
                            _ = try? await board.castVote(id: id, side: side, times: worker + 1)
                        }
                    }
                }
            }
        }
        #expect(try board.posters(limit: 10).reduce(0) { $0 + $1.totalVotes } == 60 * (1 + 2 + 3 + 4 + 5 + 6))
        try Self.expectTotalsEqualCounts(board)
        #expect(try board.timeline(poster: posters[0].id, bucket: .minute).count > 1)
    }

    @Test(arguments: BackendUnderTest.all)
    func compactionFoldsOldMinutesIntoHoursAndOldHoursIntoDaysKeepingTotals(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let clock = Locked(Self.start)
        let board = try Self.board(backend, store, clock: clock)
        let posters = try board.quickPost([("a", []), ("b", [])])
        for (offset, side, times) in [(0, VoteSide.first, 2), (61, .second, 1), (1800, .first, 5), (3601, .second, 3)]
            as [(Int64, VoteSide, Int)]
        {
            clock.withLock { $0 = Self.start + offset }
            try board.vote(id: posters[0].id, side: side, times: times)
        }
        try board.vote(id: posters[1].id, side: .first)
        func stored() throws -> [TimelineRow] { try board.store.read { try $0.timelineRows(posters: posters[0].id...posters[1].id) } }
        func row(_ poster: Poster, _ offset: Int64, _ good1: Int, _ good2: Int) -> TimelineRow {
            TimelineRow(posterID: poster.id, bucket: Self.bucket(offset, good1, good2))
        }
        let minutes = [
            row(posters[0], 0, 2, 0), row(posters[0], 60, 0, 1), row(posters[0], 1800, 5, 0), row(posters[0], 3600, 0, 3),
            row(posters[1], 3600, 1, 0),
        ]
        #expect(try stored() == minutes)
        // 47 hours on, nothing is due.
        clock.withLock { $0 = Self.start + 47 * 3600 }
        try board.compactTimelines()
        #expect(try stored() == minutes)
        // Past 48 hours for the first hour, not yet for the second: its minutes fold into one.
        clock.withLock { $0 = Self.start + 49 * 3600 + 30 }
        try board.compactTimelines()
        #expect(try stored() == [row(posters[0], 0, 7, 1), row(posters[0], 3600, 0, 3), row(posters[1], 3600, 1, 0)])
        // Again does nothing more; a vote now goes to its own minute.
        try board.compactTimelines()
        try board.vote(id: posters[1].id, side: .second, times: 2)
        #expect(try stored().count == 4)
        try Self.expectTotalsEqualCounts(board)
        // Past 90 days every bucket of that day folds into the day (2025-11-29, begun 21 hours
        // before the start); the later vote's minute is still an hour of its own.
        clock.withLock { $0 = Self.start + 91 * 86_400 }
        try board.compactTimelines()
        let day: Int64 = -21 * 3600
        #expect(
            try stored() == [
                row(posters[0], day, 7, 4), row(posters[1], day, 1, 0), row(posters[1], 49 * 3600, 0, 2),
            ])
        try Self.expectTotalsEqualCounts(board)
        #expect(try board.timeline(poster: posters[0].id, bucket: .minute) == [Self.bucket(day, 7, 4)])
    }

    @Test(arguments: BackendUnderTest.all)
    func theVoteBatcherCompactsAfterACommitOnceTheLastCompactionIsAMinuteOld(backend: BackendUnderTest) async throws {
        let store = try TemporaryStore()
        let clock = Locked(Self.start + 120)
        let board = try Self.board(backend, store, clock: clock)
        let poster = try board.quickPost("a")
        _ = try await board.castVote(id: poster.id, side: .first)
        clock.withLock { $0 = Self.start + 2 * 3600 + 30 }
        _ = try await board.castVote(id: poster.id, side: .second)
        let old = TimelineRow(posterID: poster.id, bucket: Self.bucket(180, 0, 5))
        try board.store.write { try $0.insertTimelineRows([old]) }
        // 49 hours on: the next batch is followed by a compaction folding the first two
        // minutes into their hour; the vote is answered before it, so it is waited for.
        clock.withLock { $0 = Self.start + 49 * 3600 + 30 }
        _ = try await board.castVote(id: poster.id, side: .first)
        func stored() -> [TimelineRow] { (try? board.store.read { try $0.timelineRows(posters: poster.id...poster.id) }) ?? [] }
        let folded = [
            TimelineRow(posterID: poster.id, bucket: Self.bucket(0, 1, 5)),
            TimelineRow(posterID: poster.id, bucket: Self.bucket(2 * 3600, 0, 1)),
            TimelineRow(posterID: poster.id, bucket: Self.bucket(49 * 3600, 1, 0)),
        ]
        await waitUntil("the batcher's compaction") { stored() == folded }
        #expect(stored() == folded)
    }

    @Test(arguments: BackendUnderTest.all)
    func deletingAPosterDeletesItsTimeline(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let board = try Self.board(backend, store, clock: Locked(Self.start))
        let posters = try board.quickPost([("gone", []), ("kept", [])])
        for poster in posters { try board.vote(id: poster.id, side: .first, times: 2) }
        try board.delete(id: posters[0].id)
        let rows = try board.store.read { try $0.timelineRows(posters: posters[0].id...posters[1].id) }
        #expect(rows == [TimelineRow(posterID: posters[1].id, bucket: Self.bucket(0, 2, 0))])
        #expect(throws: BoardError.noSuchPoster(posters[0].id)) { try board.timeline(poster: posters[0].id, bucket: .hour) }
    }

    @Test(arguments: BackendUnderTest.all)
    func aCopyCarriesTimelinesAndItsVerificationComparesThem(backend: BackendUnderTest) throws {
        let sourceStore = try TemporaryStore()
        let targetStore = try TemporaryStore()
        let clock = Locked(Self.start)
        let source = try Self.board(backend, sourceStore, clock: clock)
        // Posters over real images: a copy copies their files.
        let first = try source.post(PosterDraft(image1: .file(StoreContractTests.cat), image2: .file(StoreContractTests.dog)))
        let posters = try [first] + source.quickPost((1..<9).map { ("\($0)", []) }, images: first.images)
        for (index, poster) in posters.enumerated() where index % 3 != 2 {
            clock.withLock { $0 = Self.start + Int64(index) * 900 }
            try source.vote(id: poster.id, side: index % 2 == 0 ? .first : .second, times: index + 1)
            try source.vote(id: poster.id, side: .first)
        }
        let target = try Self.board(backend, targetStore, clock: clock)
        let report = try source.copy(to: target, options: CopyOptions(posterBatch: 4))
        #expect(report.source.timelineBuckets == 6)
        for poster in posters {
            #expect(try target.timeline(poster: poster.id, bucket: .minute) == source.timeline(poster: poster.id, bucket: .minute))
        }
        let verified = try target.verifyCopy(of: source)
        #expect(verified.source == verified.target)
        try Self.expectTotalsEqualCounts(target)
        // A timeline that differs while the counts agree is found.
        try target.store.write { try $0.insertTimelineRows([TimelineRow(posterID: posters[0].id, bucket: Self.bucket(60, 1, 0))]) }
        try target.store.write { try $0.insertTimelineRows([TimelineRow(posterID: posters[0].id, bucket: Self.bucket(0, -1, 0))]) }
        #expect(throws: CopyError.self) { try target.verifyCopy(of: source) }
    }

    /// An export's timelines as compaction keeps them, each bucket with its width, totals
    /// equal to the counts, whether or not the store has compacted yet.
    @Test(arguments: BackendUnderTest.all)
    func anExportCarriesTimelinesWithTheirWidths(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let clock = Locked(Self.start + 5)
        let board = try Self.board(backend, store, clock: clock)
        let posters = try board.quickPost([("old", []), ("quiet", [])])
        try board.vote(id: posters[0].id, side: .first, times: 2)  // a day bucket 100 days on
        clock.withLock { $0 = Self.start + 40 * 86_400 + 70 }
        try board.vote(id: posters[0].id, side: .second)  // an hour bucket
        clock.withLock { $0 = Self.start + 40 * 86_400 + 130 }
        try board.vote(id: posters[0].id, side: .second, times: 3)  // the same hour
        clock.withLock { $0 = Self.start + 100 * 86_400 }
        try board.vote(id: posters[0].id, side: .first, times: 5)  // a minute bucket
        func exported(_ format: ExportFormat) throws -> String {
            var bytes: [UInt8] = []
            try board.export(ExportOptions(format: format, timelines: true), batch: 1) { bytes += $0 }
            return String(decoding: bytes, as: UTF8.self)
        }
        let day = Timestamp(secondsSince1970: Self.start - 21 * 3600)
        let hour = Timestamp(secondsSince1970: Self.start + 40 * 86_400)
        let minute = Timestamp(secondsSince1970: Self.start + 100 * 86_400)
        let csv = """
            id,start,bucket,good1,good2\r
            \(posters[0].id),\(day),day,2,0\r
            \(posters[0].id),\(hour),hour,0,4\r
            \(posters[0].id),\(minute),minute,5,0\r

            """
        #expect(try exported(.csv) == csv, "before compaction")
        try board.compactTimelines()
        #expect(try exported(.csv) == csv, "after compaction")
        let lines = try exported(.jsonl).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let timeline = try #require(lines.first?["timeline"] as? [[String: Any]])
        #expect(timeline.map { $0["bucket"] as? String } == ["day", "hour", "minute"])
        #expect(timeline.map { $0["start"] as? String } == [day, hour, minute].map(\.description))
        #expect(timeline.map { $0["good2"] as? Int } == [0, 4, 0])
        #expect(lines.last?["timeline"] as? [Any] != nil && (lines.last?["timeline"] as? [Any])?.isEmpty == true)
        var plain: [UInt8] = []
        try board.export(ExportOptions(format: .jsonl)) { plain += $0 }
        #expect(!String(decoding: plain, as: UTF8.self).contains("timeline"), "only when asked")
    }

    /// `check` finds a timeline that no longer adds up to its poster's counts, past the first
    /// batch of posters too.
    @Test(arguments: BackendUnderTest.all)
    func checkFindsATimelineThatDoesNotAddUp(backend: BackendUnderTest) throws {
        let store = try TemporaryStore()
        let clock = Locked(Self.start)
        let board = try Self.board(backend, store, clock: clock)
        let posters = try board.quickPost((0..<1_003).map { ("\($0)", []) })
        for poster in [posters[0], posters[999], posters[1_000], posters[1_002]] {
            try board.vote(id: poster.id, side: .second, times: 2)
        }
        #expect(try board.timelineProblems() == [])
        let bad = posters[1_001].id
        try board.store.write { try $0.insertTimelineRows([TimelineRow(posterID: bad, bucket: Self.bucket(60, 1, 0))]) }
        #expect(try board.timelineProblems() == ["poster \(bad)'s timeline adds up to 1/0 votes but it has 0/0"])
    }
}
