import Foundation
import Testing

@testable import TenbinKit
@testable import TenbinPostgres

/// PostgreSQL's posting lists (schema step 14): segments and their merges, stale entries
/// dropped, damage named by check and mended by a rebuild, and writers on many connections at
/// once leaving an index that answers as the scan does.
@Suite(.enabled(if: TestPostgres.isAvailable), .timeLimit(.minutes(10)))
struct PostgresPostingIndexTests {
    /// A fresh board on a fresh database.
    private func fresh() throws -> (store: PostgresStore, board: Board, folder: TemporaryStore, url: String) {
        let folder = try TemporaryStore()
        let url = try TestPostgres.freshDatabase()
        let store = try PostgresStore(url: url, poolSize: 1)
        return (store, Board(folder.configuration(), store: store, blobs: BlobStore(storeFolder: folder.path)), folder, url)
    }

    /// Segments by level: how many of each.
    private func levels(_ store: PostgresStore) throws -> [Int: Int] {
        try store.pool.withConnection { connection in
            let rows = try connection.query("SELECT level, count(*) FROM search_segment GROUP BY level")
            var levels: [Int: Int] = [:]
            for row in 0..<rows.count { levels[try rows.int(row, 0)] = try rows.int(row, 1) }
            return levels
        }
    }

    @Test func editedAndDeletedPostersLeaveStaleEntriesThatMergesDrop() throws {
        let (store, board, _, _) = try fresh()
        let edited = try board.quickPost("りんごの季節").id
        let deleted = try board.quickPost("りんご飴").id
        let kept = try board.quickPost("りんご畑").id
        _ = try board.edit(id: edited, contents: "みかんの季節", hashtags: [])
        try board.delete(id: deleted)
        let terms = SearchGrams.terms(for: SearchQuery("りんご"))
        // Until a merge, the index still names them; the recheck and the key table drop them.
        #expect(Set(try store.read { try $0.searchCandidateIDs(terms, limit: 100) }) == [edited, deleted, kept])
        #expect(try board.search(query: "りんご").map(\.id) == [kept])
        #expect(try board.search(query: "みかん").map(\.id) == [edited])
        let marks = try store.pool.withConnection { try $0.query("SELECT count(*) FROM search_stale").int(0, 0) }
        #expect(marks == 2)
        // 64 segments of one poster (three posts, the edit's, 60 more) merge into one, which
        // holds no stale entry, and the marks no segment needs are forgotten.
        for index in 0..<60 { _ = try board.quickPost("埋め草 \(index)") }
        #expect(try levels(store) == [2: 1])
        #expect(try store.read { try $0.searchCandidateIDs(terms, limit: 100) } == [kept])
        #expect(try board.search(query: "みかん").map(\.id) == [edited])
        #expect(try store.pool.withConnection { try $0.query("SELECT count(*) FROM search_stale").int(0, 0) } == 0)
        #expect(try store.integrityProblems().isEmpty)
    }

    @Test func aPrefixTermMatchesThePieceAndEveryPairStartingWithIt() throws {
        let (store, board, _, _) = try fresh()
        let pair = try board.quickPost("xy").id
        let alone = try board.quickPost("x").id
        let reversed = try board.quickPost("yx").id
        _ = try board.quickPost("z")
        let token = SearchGrams.token(ofPiece: UInt64(UnicodeScalar("x").value))
        let found = try store.read { try $0.searchCandidateIDs([IndexTerm(token: token, isPrefix: true)], limit: 10) }
        #expect(Set(found) == [pair, alone, reversed])
        #expect(try store.read { try $0.searchCandidateIDs([IndexTerm(token: token + token)], limit: 10) }.isEmpty)
        #expect(try store.read { try $0.searchCandidateIDs([IndexTerm(token: "not a token")], limit: 10) }.isEmpty)
    }

    @Test func checkNamesADamagedBlockOneOutsideAnySegmentAndAMergeOfNoSegmentAndARebuildMendsThem() throws {
        let (store, board, _, _) = try fresh()
        _ = try board.quickPost((0..<10).map { ("壊れる \($0)", []) })
        #expect(try store.integrityProblems().isEmpty)
        try store.pool.withConnection { connection in
            try connection.execute(
                """
                UPDATE search_posting SET postings = '\\x0005ff' WHERE (segment, piece) = (SELECT segment, piece FROM search_posting ORDER BY 1, 2 LIMIT 1);
                INSERT INTO search_posting (segment, piece, postings) VALUES (99, 5, '\\x000101');
                INSERT INTO search_merge (source, target) VALUES (77, 78)
                """)
        }
        let problems = try store.integrityProblems()
        #expect(
            problems.contains(
                "the search index is damaged (a merge names segments that do not exist: 77, 78); `tenbin check --repair` rebuilds it"),
            "\(problems)")
        let damaged = problems.first { $0.hasPrefix("the search index is damaged (2 entries, such as segment ") }
        #expect(damaged?.contains("its lists of posters cannot be read") == true, "\(problems)")
        #expect(problems.count == 2, "\(problems)")
        #expect(try board.rebuildSearch() == 10)
        #expect(try store.integrityProblems().isEmpty)
        #expect(try board.search(query: "壊れる", limit: 100).map(\.id) == board.scanSearchIDs(query: "壊れる"))
    }

    @Test func postsOnManyConnectionsAtOnceLeaveAnIndexThatAnswersAsTheScan() async throws {
        let (store, board, folder, url) = try fresh()
        _ = try board.quickPost("")  // the stand-in images' blob rows
        // Four writers, each its own store (its own connection), posting and editing at once:
        // their segments interleave and their merges take turns under the merge lock.
        let (configuration, path) = (folder.configuration(), folder.path)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    let mine = try PostgresStore(url: url, poolSize: 1)
                    let board = Board(configuration, store: mine, blobs: BlobStore(storeFolder: path))
                    defer { board.close() }
                    for number in 0..<40 {
                        let poster = try board.quickPost(number % 2 == 0 ? "猫 \(writer) \(number)" : "犬と猫 \(number)")
                        if number % 5 == 0 { _ = try board.edit(id: poster.id, contents: "鳥 \(number)", hashtags: []) }
                    }
                }
            }
            try await group.waitForAll()
        }
        for query in ["猫", "犬", "鳥", "猫 1", "と", "ない"] {
            #expect(try board.search(query: query, limit: 500).map(\.id) == board.scanSearchIDs(query: query), "\(query)")
        }
        #expect(try store.integrityProblems().isEmpty)
    }
}
