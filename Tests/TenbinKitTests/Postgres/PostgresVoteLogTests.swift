import Testing

@testable import TenbinPostgres

/// A walk's mark on PostgreSQL (`PostgresSession+VoteLog.swift`): a snapshot's numbers, read
/// from its text, and checked when a cursor brings them back. No server needed.
@Suite struct PostgresVoteLogTests {
    @Test func aSnapshotsTextBecomesItsMarkAndTooManyRunningFallBackToXminAlone() throws {
        #expect(try #require(PostgresSession.mark(ofSnapshot: "100:105:101,103")) == ([100, 105, 101, 103], true))
        #expect(try #require(PostgresSession.mark(ofSnapshot: "7:7:")) == ([7, 7], true))
        let running = (101...109).map(String.init).joined(separator: ",")
        #expect(try #require(PostgresSession.mark(ofSnapshot: "100:110:\(running)")) == ([100, 100], false))
        for text in ["", "1:2", "5:3:", "1:5:7", "1:5:3,2", "a:b:", "1:5:3:4"] {
            #expect(PostgresSession.mark(ofSnapshot: text) == nil, "\(text)")
        }
    }

    @Test func aMarkACursorBringsBackIsCheckedAsASnapshots() {
        #expect(PostgresSession.isMark([1, 1]))
        #expect(PostgresSession.isMark([1, 5, 1, 4]))
        #expect(PostgresSession.isMark([1, 20] + Array(2...9)))
        #expect(!PostgresSession.isMark([1]), "a SQLite mark")
        #expect(!PostgresSession.isMark([5, 3]), "xmax below xmin")
        #expect(!PostgresSession.isMark([1, 5, 5]), "a running transaction at xmax")
        #expect(!PostgresSession.isMark([1, 5, 0]), "a running transaction below xmin")
        #expect(!PostgresSession.isMark([1, 5, 3, 3]), "running transactions not ascending")
        #expect(!PostgresSession.isMark([1, 20] + Array(2...10)), "more running than a mark lists")
    }
}
