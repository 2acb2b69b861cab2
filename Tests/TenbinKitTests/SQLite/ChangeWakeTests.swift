import Foundation
import Testing

@testable import TenbinKit

/// A SQLite store's live feeds hear of commits when they happen, not at the next tick: the
/// ticks here are an hour apart, so every delivery below was woken by a commit. And however
/// often commits come, the feeds are re-read at most once per `spacing`.
///
/// The time limit only ends a feed that a commit failed to wake (it would wait out the hour).
/// It counts from the test's start, including time spent waiting for a thread while the rest
/// of the suite runs: 2 minutes was too short under AddressSanitizer in CI, where tests that
/// block their threads on child processes held every thread of the pool for minutes.
@Suite(.timeLimit(.minutes(10))) struct ChangeWakeTests {
    @Test func aCommitByAnotherConnectionWakesAFeedBeforeItsTick() async throws {
        let store = try TemporaryStore()
        let board = try store.board(live: LiveFeeds.Options(interval: .seconds(3600), spacing: .zero))
        let posted = try board.quickPost("a poster")
        var updates = try board.observe(Feed(order: .new, limit: 10)).makeAsyncIterator()
        #expect(try await updates.next() == .snapshot([posted]))
        // Another store value is another connection and another change source, as another
        // process would have: only its write to the log can wake this feed.
        let voted = try store.board().vote(id: posted.id, side: .first)
        #expect(try await updates.next() == .changes([.modified(voted, oldIndex: 0, newIndex: 0)]))
        let added = try store.board().quickPost("another poster")
        #expect(try await updates.next() == .changes([.added(added, newIndex: 0)]))
    }

    @Test func thisProcessesOwnCommitWakesAFeedBeforeItsTick() async throws {
        let store = try TemporaryStore()
        let board = try store.board(live: LiveFeeds.Options(interval: .seconds(3600), spacing: .zero))
        let posted = try board.quickPost("a poster")
        var updates = try board.observe(Feed(order: .new, limit: 10)).makeAsyncIterator()
        #expect(try await updates.next() == .snapshot([posted]))
        let voted = try board.vote(id: posted.id, side: .second)
        #expect(try await updates.next() == .changes([.modified(voted, oldIndex: 0, newIndex: 0)]))
    }

    @Test func commitsInQuickSuccessionAreReadAtMostOncePerInterval() async throws {
        let store = try TemporaryStore()
        let spacing = Duration.milliseconds(300)
        let reads = Locked<[ContinuousClock.Instant]>([])
        let options = LiveFeeds.Options(interval: .seconds(3600), spacing: spacing) { event in
            if case .changed = event { reads.withLock { $0.append(.now) } }
        }
        let board = try store.board(live: options)
        let posted = try board.quickPost("a poster")
        var updates = try board.observe(Feed(order: .new, limit: 10)).makeAsyncIterator()
        _ = try await updates.next()
        let other = try store.board()
        var votes = 0
        while votes < 8 {
            // Each vote waits for the feed to show it, so every one is its own change.
            _ = try other.vote(id: posted.id, side: .first)
            votes += 1
            var shown = false
            while !shown {
                let update = try #require(try await updates.next())
                guard case .changes(let changes) = update else { continue }
                shown = changes.contains { if case .modified(let poster, _, _) = $0 { poster.good1 == votes } else { false } }
            }
        }
        let times = reads.withLock { $0 }
        #expect(times.count >= 2)
        for (earlier, later) in zip(times, times.dropFirst()) {
            #expect(later - earlier >= spacing)
        }
    }
}
