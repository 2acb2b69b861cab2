import Testing

@testable import TenbinKit
@testable import TenbinSQLite

/// What a SQLite store remembers of the vote log per walk (``VoteLogKeys``): each page of a
/// walk reads only the batches after the ones read for its mark, the first row of a poster
/// after the mark is its key, and marks are forgotten when the log no longer answers them or
/// too many are kept.
@Suite struct VoteLogKeysTests {
    typealias Key = VoteLogKeys.Key

    /// A log read that records the ranges asked for and answers `rows` in them.
    final class Log {
        var rows: [(batch: Int64, id: Int64, key: Key)] = []
        var asked: [ClosedRange<Int64>] = []

        func read(after: Int64, through: Int64) -> [(id: Int64, key: Key)] {
            asked.append((after + 1)...through)
            return rows.filter { $0.batch > after && $0.batch <= through }.map { ($0.id, $0.key) }
        }
    }

    @Test func aWalksNextPageReadsOnlyTheBatchesSinceItsLastAndKeepsEachPostersFirstKey() throws {
        let keys = VoteLogKeys()
        let log = Log()
        log.rows = [
            (6, 1, Key(votes: 10, score: 100)), (7, 2, Key(votes: 20, score: 200)), (8, 1, Key(votes: 11, score: 101)),
            (11, 3, Key(votes: 30, score: 300)), (12, 2, Key(votes: 21, score: 201)),
        ]
        let first = try keys.keys(mark: 5, through: 10, oldest: 0, read: log.read)
        #expect(first == [1: Key(votes: 10, score: 100), 2: Key(votes: 20, score: 200)])
        let second = try keys.keys(mark: 5, through: 12, oldest: 0, read: log.read)
        #expect(second == [1: Key(votes: 10, score: 100), 2: Key(votes: 20, score: 200), 3: Key(votes: 30, score: 300)])
        // Nothing new: no read at all.
        _ = try keys.keys(mark: 5, through: 12, oldest: 0, read: log.read)
        #expect(log.asked == [6...10, 11...12])
        // Another walk's mark is read from its own start.
        #expect(
            try keys.keys(mark: 7, through: 12, oldest: 0, read: log.read) == [
                1: Key(votes: 11, score: 101), 2: Key(votes: 21, score: 201), 3: Key(votes: 30, score: 300),
            ])
        #expect(log.asked.last == 8...12)
    }

    @Test func marksTheLogNoLongerAnswersAndTheLeastRecentlyUsedPastTheCapacityAreForgotten() throws {
        let keys = VoteLogKeys()
        let log = Log()
        log.rows = [(2, 1, Key(votes: 1, score: 1))]
        _ = try keys.keys(mark: 1, through: 2, oldest: 0, read: log.read)
        _ = try keys.keys(mark: 1, through: 2, oldest: 0, read: log.read)
        #expect(log.asked.count == 1)
        // The log answers from mark 2 on: mark 1 is forgotten (the store refuses it first).
        _ = try keys.keys(mark: 1, through: 2, oldest: 2, read: log.read)
        #expect(log.asked.count == 2)
        log.asked = []
        for mark in Int64(1)...Int64(VoteLogKeys.capacity + 1) { _ = try keys.keys(mark: mark, through: 1000, oldest: 0, read: log.read) }
        #expect(log.asked.count == VoteLogKeys.capacity + 1)
        // The newest marks are kept, the first is gone.
        _ = try keys.keys(mark: Int64(VoteLogKeys.capacity + 1), through: 1000, oldest: 0, read: log.read)
        #expect(log.asked.count == VoteLogKeys.capacity + 1)
        _ = try keys.keys(mark: 1, through: 1000, oldest: 0, read: log.read)
        #expect(log.asked.count == VoteLogKeys.capacity + 2)
    }
}
