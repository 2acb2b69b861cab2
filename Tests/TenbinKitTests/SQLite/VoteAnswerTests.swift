import TenbinKit
import Testing

@testable import TenbinSQLite

/// A vote batch answers with its posters as the update left them, worked out from the rows it
/// read before the update instead of read again.
@Suite struct VoteAnswerTests {
    @Test func aBatchAnswersWithWhatAFreshReadShowsCountsPastIntMaxIncluded() throws {
        let store = try TemporaryStore()
        let board = try store.board()
        let posters = try board.quickPost([("一", ["いち", "1"]), ("二", []), ("三", ["さん"])])
        // A count at the edge of Int64, as only a crafted database holds: the update makes it a
        // real number in SQLite, which reads back as the largest integer.
        let database = try Database(path: "\(store.path)/tenbin.sqlite", mode: .readWrite)
        try database.execute("UPDATE poster SET good2 = \(Int.max - 1) WHERE id = \(posters[2].id)")
        database.close()
        let deltas = [
            VoteDelta(id: posters[0].id, good1: 2, good2: 1), VoteDelta(id: posters[1].id, good1: 0, good2: 4),
        ]
        for round in 1...3 {
            let answered = try board.store.commitVotes(deltas)
            let read = try board.store.read { try $0.posters(ids: deltas.map(\.id)) }
            #expect(answered == read, "round \(round)")
            #expect(answered.map(\.good1) == [2 * round, 0] && answered.map(\.good2) == [round, 4 * round])
            #expect(answered.first?.hashtags == ["いち", "1"])
        }
        let edge = try board.store.commitVotes([VoteDelta(id: posters[2].id, good1: 0, good2: 5)])
        let read = try board.store.read { try $0.posters(ids: [posters[2].id]) }
        #expect(edge == read)
        #expect(edge.first?.good2 == Int.max)
    }
}
