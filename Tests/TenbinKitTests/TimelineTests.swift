import Testing

@testable import TenbinKit

/// The pure logic of timelines: which minute a vote goes to, the folds due at a moment, views
/// summing stored buckets, and compaction keeping every total.
@Suite struct TimelineTests {
    static func at(_ seconds: Int64) -> Timestamp { Timestamp(secondsSince1970: seconds) }

    @Test func aVoteGoesToTheMinuteHoldingItEvenBefore1970() {
        #expect(Timeline.minuteStart(of: Self.at(3_599)) == 3_540)
        #expect(Timeline.minuteStart(of: Self.at(3_600)) == 3_600)
        #expect(Timeline.minuteStart(of: Self.at(-1)) == -60)
        #expect(Timeline.minuteStart(of: Self.at(-60)) == -60)
    }

    @Test func foldsAreDueOnWholeHoursAndDaysBehindTheirSpans() {
        let now = Self.at(100 * 86_400 + 5 * 3600 + 1234)
        #expect(
            Timeline.folds(at: now) == [
                Timeline.Fold(width: 86_400, before: 10 * 86_400),
                Timeline.Fold(width: 3600, before: 98 * 86_400 + 5 * 3600),
            ])
    }

    @Test func aViewSumsStoredBucketsIntoItsSizeAndLeavesEmptyOnesOut() {
        let rows = [
            TimelineBucket(start: Self.at(7_200), good1: 2, good2: 0),  // an hour, folded
            TimelineBucket(start: Self.at(7_260), good1: 0, good2: 1),
            TimelineBucket(start: Self.at(90_000), good1: 1, good2: 1),
            TimelineBucket(start: Self.at(120), good1: 0, good2: 0),
        ]
        #expect(
            Timeline.view(rows, size: .minute) == [
                TimelineBucket(start: Self.at(7_200), good1: 2, good2: 0), TimelineBucket(start: Self.at(7_260), good1: 0, good2: 1),
                TimelineBucket(start: Self.at(90_000), good1: 1, good2: 1),
            ])
        #expect(
            Timeline.view(rows, size: .hour) == [
                TimelineBucket(start: Self.at(7_200), good1: 2, good2: 1), TimelineBucket(start: Self.at(90_000), good1: 1, good2: 1),
            ])
        #expect(
            Timeline.view(rows, size: .day) == [
                TimelineBucket(start: Self.at(0), good1: 2, good2: 1), TimelineBucket(start: Self.at(86_400), good1: 1, good2: 1),
            ])
    }

    @Test func compactionKeepsEveryPostersTotals() {
        var random = SplitMix64(seed: 30)
        let now = Self.at(200 * 86_400)
        let rows = (0..<500).map { _ in
            TimelineRow(
                posterID: Int64(random.next(upTo: 5)),
                bucket: TimelineBucket(
                    start: Self.at(Int64(random.next(upTo: 200 * 1440)) * 60), good1: random.next(upTo: 4), good2: random.next(upTo: 4)))
        }
        let compacted = Timeline.compacted(rows, at: now)
        for poster in Int64(0)..<5 {
            let before = rows.filter { $0.posterID == poster }
            let after = compacted.filter { $0.posterID == poster }
            #expect(before.reduce(0) { $0 + $1.bucket.good1 } == after.reduce(0) { $0 + $1.bucket.good1 })
            #expect(before.reduce(0) { $0 + $1.bucket.good2 } == after.reduce(0) { $0 + $1.bucket.good2 })
        }
        for row in compacted {
            let start = row.bucket.start.secondsSince1970
            if start < 110 * 86_400 { #expect(start % 86_400 == 0, "\(start)") }
            if start < 198 * 86_400 { #expect(start % 3600 == 0, "\(start)") }
        }
        #expect(
            Set(compacted.map { Timeline.TimelineKey(posterID: $0.posterID, start: $0.bucket.start.secondsSince1970) }).count
                == compacted.count)
    }
}
