import Testing

@testable import TenbinKit
@testable import TenbinPostgres

#if canImport(Glibc)
    import Glibc
#endif

/// A store reading from a hot standby, in process, where what the store has learnt can be held
/// still: no live feed listens, so nothing raises its floor but its own reads and writes.
/// (`tenbin serve --replica` end to end: ServeReplicaTests.)
@Suite(.enabled(if: TestPostgres.isAvailable), .timeLimit(.minutes(10)))
struct PostgresReplicaTests {
    @Test func aWalkPageWhoseMarkTheStandbyHasNotReplayedIsAnsweredByThePrimary() throws {
        let primary = try TestPostgres.PrivateServer()
        let standby = try TestPostgres.Standby(of: primary)
        let folder = try TemporaryStore()
        // Another server (no standby) writes and hands out the walk's cursor.
        let writer = Board(folder.configuration(), store: try PostgresStore(url: primary.url), blobs: BlobStore(storeFolder: folder.path))
        defer { writer.close() }
        for number in 0..<4 { _ = try writer.quickPost("poster \(number)") }
        _ = try writer.vote(id: 1, side: .first)
        let replicated = try PostgresStore(url: primary.url, replicas: [standby.url], replicaMaxLag: .seconds(600))
        let reader = Board(folder.configuration(), store: replicated, blobs: BlobStore(storeFolder: folder.path))
        defer { reader.close() }
        let replicas = try #require(replicated.replicas)
        let standbyConnection = try Connection(ConnectionTarget(standby.url))
        try waitUntil("the standby in rotation with the posters") {
            replicas.check()
            return try standbyConnection.query("SELECT count(*) FROM poster").int(0, 0) == 4 && replicas.replicas[0].isInRotation
        }
        #expect(try reader.page(order: .popular, limit: 4).posters.map(\.id) == [1, 4, 3, 2])
        let standbyReads = replicas.replicas[0].snapshot.reads
        #expect(standbyReads > 0)

        // Paused, the standby's vote log stops at the batch above; the writer votes on.
        try standbyConnection.execute("SELECT pg_wal_replay_pause()")
        _ = try writer.vote(id: 3, side: .second, times: 5)
        let first = try writer.page(order: .popular, limit: 2)
        #expect(first.posters.map(\.id) == [3, 1])
        let cursor = try #require(first.next)
        // The reader never heard of that batch: the standby would be read, and its log does not
        // reach the cursor's mark, so the primary answers.
        let second = try reader.page(order: .popular, limit: 2, after: cursor)
        #expect(second.posters.map(\.id) == [4, 2])
        #expect(replicas.replicas[0].isInRotation)
        try standbyConnection.execute("SELECT pg_wal_replay_resume()")
    }
}
