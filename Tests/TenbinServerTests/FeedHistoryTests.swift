import TenbinKit
import Testing

@testable import TenbinServer

/// Event ids of live feeds and resuming from them, without a server.
@Suite struct FeedHistoryTests {
    let feed = Feed(order: .new, limit: 5, query: nil)

    func poster(_ id: Int64, good1: Int = 0) -> Poster {
        Poster(
            id: id, contents: "poster \(id)", hashtags: [], good1: good1, good2: 0, createdAt: Timestamp(secondsSince1970: id),
            images: [])
    }

    @Test func streamsInTheSameStateGetTheSameIdsAndEvents() throws {
        let history = FeedHistory()
        var first = FeedHolder(feed: feed, history: history, resumedFrom: nil)
        var second = FeedHolder(feed: feed, history: history, resumedFrom: nil)
        let snapshot = FeedUpdate.snapshot([poster(2), poster(1)])
        #expect(try first.events(for: snapshot) == second.events(for: snapshot))
        let vote = FeedUpdate.changes([.modified(poster(1, good1: 1), oldIndex: 1, newIndex: 1)])
        let text = try first.events(for: vote)
        #expect(text.hasPrefix("id: "))
        #expect(text.contains("\nevent: modified\ndata: {\"type\": \"modified\", \"id\": 1,"))
        #expect(try second.events(for: vote) == text)
        #expect(first.held?.id == second.held?.id)
        #expect(first.held?.posters == [poster(2), poster(1, good1: 1)])
    }

    @Test func aResumedStreamGetsTheChangesSinceItsStateAndAnUnknownOneASnapshot() throws {
        let history = FeedHistory()
        var original = FeedHolder(feed: feed, history: history, resumedFrom: nil)
        _ = try original.events(for: .snapshot([poster(1)]))
        let id = try #require(original.held?.id)

        var resumed = FeedHolder(feed: feed, history: history, resumedFrom: id)
        let now = [poster(2), poster(1, good1: 4)]
        let text = try resumed.events(for: .snapshot(now))
        #expect(!text.contains("event: snapshot"))
        #expect(text.contains("event: added") && text.contains("event: modified"))
        #expect(resumed.held?.posters == now)
        var unchanged = FeedHolder(feed: feed, history: history, resumedFrom: id)
        #expect(try unchanged.events(for: .snapshot([poster(1)])) == "", "nothing changed: no event")

        for (other, otherID) in [(feed, "unknown"), (Feed(order: .popular, limit: 5, query: nil), id)] {
            var fresh = FeedHolder(feed: other, history: history, resumedFrom: otherID)
            #expect(try fresh.events(for: .snapshot(now)).contains("event: snapshot"))
        }
    }
}
