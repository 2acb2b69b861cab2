import Foundation
import TenbinKit
import Testing

@testable import TenbinServer

/// A poster's votes over time on its page: an SVG drawn by the server (no script needed), each
/// side's running total as a line, and a caption that says the same in words.
@Suite struct TimelineChartTests {
    static let hour: Int64 = 3600

    @Test func theLinesAreEachSidesRunningTotalScaledToTheHighest() {
        let buckets = [
            TimelineBucket(start: Timestamp(secondsSince1970: 0), good1: 2, good2: 0),
            TimelineBucket(start: Timestamp(secondsSince1970: 2 * Self.hour), good1: 2, good2: 1),
        ]
        let chart = TimelineChart(buckets, size: .hour, now: Timestamp(secondsSince1970: 4 * Self.hour))
        #expect(chart.points.map(\.time) == [0, Self.hour, 3 * Self.hour])
        #expect(chart.points.map(\.good1) == [0, 2, 4])
        #expect(chart.points.map(\.good2) == [0, 0, 1])
        let (line1, line2) = chart.lines()
        // 4 hours across 320; 4 votes up 60 (2 to 62), flat to now.
        #expect(line1 == "0,62 80,32 240,2 320,2")
        #expect(line2 == "0,62 80,62 240,47 320,47")
    }

    @Test func theSummaryGivesTotalsAndOnlyTheLastDaysVotes() {
        let now: Int64 = 100 * Self.hour
        let buckets = [
            TimelineBucket(start: Timestamp(secondsSince1970: 0), good1: 5, good2: 1),
            TimelineBucket(start: Timestamp(secondsSince1970: now - 2 * Self.hour), good1: 1, good2: 3),
        ]
        let chart = TimelineChart(buckets, size: .hour, now: Timestamp(secondsSince1970: now))
        #expect(chart.recent == (good1: 1, good2: 3))
        #expect(
            chart.summary(WebText(language: .en))
                == "Votes since 1970-01-01 00:00 UTC: left 6, right 4; in the last 24 hours left +1, right +3.")
        #expect(chart.summary(WebText(language: .ja)) == "1970-01-01 00:00 UTCからの投票：左 6、右 4。直近24時間：左 +1、右 +3。")
        let empty = TimelineChart([], size: .hour, now: Timestamp(secondsSince1970: now))
        #expect(empty.summary(WebText(language: .en)) == "No votes yet")
        #expect(empty.lines() == ("", ""))
    }

    @Test func aPosterPageShowsItsVotesOverTimeAsANamedImageWithItsDataForTheScript() async throws {
        // A fixed clock, half past an hour: on the system's, a run that crossed the hour put the
        // first three votes and the fourth in two buckets.
        let halfPast = Timestamp(secondsSince1970: 1_796_560_200)  // 2026-12-06 12:30 UTC
        let server = try TestServer(board: { $0.now = { halfPast } }) { $0.rateLimited = false }
        await server.post(contents: "cats or dogs")
        await server.vote(1, side: 1, times: 3)
        await server.vote(1, side: 2, times: 1)
        let html = await server.request("GET", "/p/1").text
        let figure = try #require(html.firstRange(of: "<figure class=\"trend\"").map { String(html[$0.lowerBound...].prefix(2000)) })
        #expect(figure.contains("<svg viewBox=\"0 0 320 64\" preserveAspectRatio=\"none\" role=\"img\" aria-labelledby=\"trend-1\">"))
        #expect(figure.contains("<figcaption id=\"trend-1\"><span class=\"trend-title\">Votes over time</span>"))
        #expect(figure.contains("Votes since 2026-12-06 12:00 UTC: left 3, right 1; in the last 24 hours left +3, right +1."))
        #expect(figure.contains("data-good1=\"0,3\" data-good2=\"0,1\""))
        #expect(figure.contains("<polyline class=\"line1\" vector-effect=\"non-scaling-stroke\" points=\"0,62 320,2\"/>"))
        // In the card, before the bar; the board's cards carry none (the script adds them).
        #expect(html.firstRange(of: "<figure class=\"trend\"")!.lowerBound < html.firstRange(of: "<div class=\"meter")!.lowerBound)
        #expect(!(await server.request("GET", "/").text.contains("class=\"trend")))
        let japanese = await server.request("GET", "/p/1", headers: [("Accept-Language", "ja")]).text
        #expect(japanese.contains("<span class=\"trend-title\">投票の推移</span>"))
        await server.post(contents: "no votes yet")
        #expect((await server.request("GET", "/p/2").text).contains("<figure class=\"trend empty\""), "hidden until a vote")
    }
}
