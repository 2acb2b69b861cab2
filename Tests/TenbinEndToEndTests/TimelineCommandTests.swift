import Foundation
import Testing

/// `tenbin show ID --timeline`: a sparkline per side from the poster's timeline, its buckets
/// as JSON, and the usage errors of `--bucket`.
@Suite(.ownThreads, .timeLimit(.minutes(10))) struct TimelineCommandTests {
    static let images = [Tenbin.root + "/SampleImages/01-cats-or-dogs/1-cat.jpg", Tenbin.root + "/SampleImages/01-cats-or-dogs/2-dog.jpg"]

    @Test func showTimelineDrawsBothSidesAndPrintsTheBucketsAsJSON() throws {
        let store = try ScratchFolder()
        #expect(try Tenbin.run(["post"] + Self.images, store: store.path).status == 0)
        let empty = try Tenbin.run(["show", "1", "--timeline"], store: store.path)
        #expect(
            empty.status == 0 && empty.stdout == "Poster #1 · no votes yet.\n" && empty.stderr.isEmpty, "\(empty.stdout)\(empty.stderr)")
        #expect(try Tenbin.run(["vote", "1", "1", "--times", "8"], store: store.path).status == 0)
        #expect(try Tenbin.run(["vote", "1", "2", "--times", "2"], store: store.path).status == 0)
        let json = try Tenbin.run(["show", "1", "--timeline", "--bucket", "day", "--json"], store: store.path)
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let buckets = try #require(object["buckets"] as? [[String: Any]])
        #expect(buckets.reduce(0) { $0 + ($1["good1"] as? Int ?? 0) } == 8 && buckets.reduce(0) { $0 + ($1["good2"] as? Int ?? 0) } == 2)
        let start = try #require(buckets.first?["start"] as? String)
        #expect(start.hasSuffix("T00:00:00Z"), "\(start)")
        let drawn = try Tenbin.run(["show", "1", "--timeline", "--bucket", "day"], store: store.path)
        #expect(drawn.status == 0 && drawn.stderr.isEmpty, "\(drawn.stderr)")
        let lines = drawn.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Both votes fell on one day unless they straddled midnight, UTC.
        if buckets.count == 1 {
            #expect(lines == ["Poster #1 · votes per day, \(start)", "  1 █  8", "  2 ▂  2", ""], "\(drawn.stdout)")
        }
        #expect(lines.count == 4 && lines[1].hasSuffix(" 8") && lines[2].hasSuffix(" 2"), "\(drawn.stdout)")
        // The default is per hour.
        #expect(try Tenbin.run(["show", "1", "--timeline"], store: store.path).stdout.hasPrefix("Poster #1 · votes per hour, "))
    }

    @Test func aBadBucketABucketWithoutTimelineAndAnUnknownPosterAreRefused() throws {
        let store = try ScratchFolder()
        #expect(try Tenbin.run(["post"] + Self.images, store: store.path).status == 0)
        let week = try Tenbin.run(["show", "1", "--timeline", "--bucket", "week"], store: store.path)
        #expect(week.status == 64 && week.stdout.isEmpty)
        #expect(week.stderr.hasPrefix("Error: '--bucket' takes one of minute, hour, day, not 'week'\n"), "\(week.stderr)")
        let alone = try Tenbin.run(["show", "1", "--bucket", "day"], store: store.path)
        #expect(alone.status == 64 && alone.stdout.isEmpty)
        #expect(alone.stderr.hasPrefix("Error: '--bucket' is for '--timeline'\n"), "\(alone.stderr)")
        let missing = try Tenbin.run(["show", "9", "--timeline"], store: store.path)
        #expect(missing.status == 1 && missing.stdout.isEmpty)
        #expect(missing.stderr == "Error: poster #9: no such poster\n")
    }
}
