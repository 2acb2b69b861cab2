import Foundation
import Testing

@testable import TenbinKit
@testable import TenbinSQLite

/// Migration 17 seeds every voted poster's trending score from its timeline (or, without one,
/// from its counts at its creation), so an upgraded store's trending order is right at once.
@Suite struct TrendingMigrationTests {
    @Test func aSchema13StoreGetsScoresFromItsTimelinesAndCountsOnUpgrade() throws {
        let store = try TemporaryStore()
        let day = Trending.halfLife
        let start: Int64 = 1_764_450_000
        do {
            let board = try store.board()
            defer { board.close() }
            _ = try board.quickPost([("a", []), ("b", []), ("c", []), ("d", [])])
        }
        // Back to schema 13, with timelines as schema 13 wrote them: a (id 1) had 10 votes two
        // days before b (id 2) had 3 in two buckets; c (id 3) has counts and no buckets (a
        // store kept none before schema 13 only if it had no votes, but the fallback is there);
        // d (id 4) has none.
        do {
            let db = try Database(path: "\(store.path)/tenbin.sqlite", mode: .readWrite)
            try db.execute(
                NewerSchemas.undo(after: 13) + """
                    UPDATE poster SET good1 = 6, good2 = 4 WHERE id = 1;
                    UPDATE poster SET good1 = 1, good2 = 2 WHERE id = 2;
                    UPDATE poster SET good1 = 2, good2 = 0, created_at = \(start) WHERE id = 3;
                    INSERT INTO vote_bucket VALUES (1, \(start), 6, 4), (2, \(start + 2 * day), 1, 0), (2, \(start + 2 * day + 60), 0, 2);
                    PRAGMA user_version = 13;
                    """)
        }
        let board = try store.board(create: false)
        defer { board.close() }
        let posters = try board.posters(order: .trending, limit: 10)
        #expect(posters.map(\.id) == [2, 1, 3, 4])
        let scores = Dictionary(uniqueKeysWithValues: posters.map { ($0.id, $0.trendingScore) })
        let expected: [Int64: Int64] = [
            1: Trending.score(of: [(start: Timestamp(secondsSince1970: start), votes: 10)]),
            2: Trending.score(of: [
                (start: Timestamp(secondsSince1970: start + 2 * day), votes: 1),
                (start: Timestamp(secondsSince1970: start + 2 * day + 60), votes: 2),
            ]),
            3: Trending.score(of: [(start: Timestamp(secondsSince1970: start), votes: 2)]),
            4: 0,
        ]
        for (id, score) in expected {
            #expect(abs((scores[id] ?? -9) - score) <= 1, "poster \(id): \(scores[id] ?? -9) against \(score)")
        }
        #expect(try board.store.integrityProblems() == [])
    }
}
