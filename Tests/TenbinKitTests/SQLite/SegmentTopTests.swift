import Foundation
import Testing

@testable import TenbinKit
@testable import TenbinSQLite

/// Each search segment's top (schema 19): the highest poster id its lists can hold, so a
/// search reads a segment only once it has gone below it, and a page of a common word's newest
/// matches never reads the old, large segments.
@Suite struct SegmentTopTests {
    typealias SearchStore = SearchIndexTests.SearchStore

    // MARK: Reading lazily

    /// Segments of one term for ``TermCursor``: each segment's top and its list, and the
    /// segments read so far, in order.
    final class Segments {
        let lists: [Int64: [Int64]]
        let tops: [Int64: Int64]
        var read: [Int64] = []

        init(_ segments: [(id: Int64, top: Int64, ids: [Int64])]) {
            lists = Dictionary(uniqueKeysWithValues: segments.map { ($0.id, $0.ids) })
            tops = Dictionary(uniqueKeysWithValues: segments.map { ($0.id, $0.top) })
        }

        /// A cursor over every segment, given in order of id (the cursor orders them itself).
        func cursor() throws -> TermCursor {
            try TermCursor(segments: tops.keys.sorted().map { IndexSegment(id: $0, top: tops[$0]!) }) { segment in
                self.read.append(segment)
                guard let ids = self.lists[segment], !ids.isEmpty else { return [] }
                var bytes: [UInt8] = []
                PostingCoding.encode(descending: ids, into: &bytes)
                return [PostingCursor(bytes, bytes.indices)]
            }
        }

        /// Every id the cursor reaches, highest first.
        static func all(_ cursor: inout TermCursor) throws -> [Int64] {
            var ids: [Int64] = []
            while let id = cursor.current {
                ids.append(id)
                try cursor.seek(atMost: id - 1)
            }
            return ids
        }
    }

    @Test func aTermReadsASegmentOnlyOnceItHasGoneBelowItsTop() throws {
        // The oldest, largest segment (1), two newer ones, and the newest (9) holding two old
        // posters edited since: 40, which the term is new to, and 20, which it was in already.
        let segments = Segments([
            (1, 60, (1...60).reversed().filter { $0 != 40 }), (5, 80, [80, 75, 70, 61]), (7, 100, [100, 95, 90]), (9, 40, [40, 20]),
        ])
        var cursor = try segments.cursor()
        #expect(cursor.current == 100)
        #expect(segments.read == [7])
        try cursor.seek(atMost: 91)
        #expect(cursor.current == 90 && segments.read == [7])
        try cursor.seek(atMost: 89)
        #expect(cursor.current == 80 && segments.read == [7, 5])
        try cursor.seek(atMost: 62)
        #expect(cursor.current == 61 && segments.read == [7, 5])
        try cursor.seek(atMost: 60)
        #expect(cursor.current == 60 && segments.read == [7, 5, 1])
        // The edited posters are read at their place, 20 (in two segments) reported once.
        let rest = try Segments.all(&cursor)
        #expect(segments.read == [7, 5, 1, 9])
        #expect(rest == Array((1...60).reversed()))
        #expect(cursor.segmentsRead == 4)
    }

    @Test func aSegmentWhoseTopIsNotKnownIsReadFirst() throws {
        let segments = Segments([(1, Int64.max, [3, 2]), (2, 10, [10, 9]), (3, 0, [])])
        var cursor = try segments.cursor()
        #expect(segments.read == [1, 2])
        #expect(try Segments.all(&cursor) == [10, 9, 3, 2])
        // A segment whose top is 0 holds nothing and is never read.
        #expect(segments.read == [1, 2])
    }

    @Test func aTermThatMatchesNothingReadsEverySegmentAndEnds() throws {
        let segments = Segments([(1, 5, []), (2, 9, [])])
        let cursor = try segments.cursor()
        #expect(cursor.current == nil)
        #expect(segments.read == [2, 1])
    }

    @Test func anIntersectionReadsTheOldSegmentsOnlyForARareTerm() throws {
        // A common term in every poster and a rare one; the newest page of their
        // intersection is in the newest segments.
        let common = Segments([(1, 500, Array((1...500).reversed())), (2, 520, Array((501...520).reversed()))])
        let rare = Segments([(1, 500, [400, 7]), (2, 520, [519, 510])])
        var both = PostingIntersection([try common.cursor(), try rare.cursor()], below: nil)
        #expect(try both.next() == 519)
        #expect(try both.next() == 510)
        #expect(common.read == [2] && rare.read == [2])
        #expect(try both.next() == 400)
        #expect(try both.next() == 7)
        #expect(try both.next() == nil)
        #expect(common.read == [2, 1] && rare.read == [2, 1])
        #expect(both.segmentsRead == 4)
    }

    // MARK: Tops in the store

    /// Each segment's top, by id.
    static func tops(_ s: SearchStore) throws -> [Int64: Int64] {
        let writer = try #require(try s.store.open()).writer
        return try writer.withLock { db in
            var tops: [Int64: Int64] = [:]
            for (id, top) in try db.statement("SELECT id, top FROM search_segment").map({ ($0.int64(0), $0.int64(1)) }) { tops[id] = top }
            return tops
        }
    }

    @Test func eachSegmentRecordsItsHighestPosterAndAMergeTheHighestOfItsSources() throws {
        let s = try SearchStore()
        let batch = try SearchSegmentTests.addBatch(s, (0..<20).map { "一括 \($0)" })
        #expect(Array(try Self.tops(s).values) == [batch.max()!])
        // An edit of the oldest poster writes a segment of its own whose top is that poster.
        _ = try s.board.edit(id: batch[0], contents: "直した", hashtags: [])
        #expect(try Self.tops(s).values.sorted() == [batch[0], batch.max()!])
        // Seven posts more: the eight single segments merge into one, whose top is the newest post's.
        var posts: [Int64] = []
        for index in 0..<7 { posts.append(try s.add("単独 \(index)")) }
        #expect(try Self.tops(s).values.sorted() == [batch.max()!, posts.max()!])
        #expect(try s.ids("直した") == [batch[0]])
        #expect(try s.store.integrityProblems() == [])
    }

    @Test func aSegmentIsNotReadAboveItsTopAndCheckNamesATopBelowItsPosters() throws {
        let s = try SearchStore()
        let old = try SearchSegmentTests.addBatch(s, (0..<10).map { "古い \($0)" })
        let new = try SearchSegmentTests.addBatch(s, (0..<10).map { "新しい \($0)" })
        _ = try s.board.edit(id: old[1], contents: "新しい 直した", hashtags: [])
        let every = new.reversed() + old.reversed()
        #expect(try s.ids("い", limit: 100) == every)
        // A top that says the oldest segment holds nothing above its lowest poster: a search
        // goes by it, reading that segment only below the edited poster (whose own segment
        // is read first), and misses the rest; check names it.
        let writer = try #require(try s.store.open()).writer
        try writer.withLock { db in
            try db.statement("UPDATE search_segment SET top = ? WHERE top = ?").bind(old[0], old.max()!).run()
        }
        #expect(try s.ids("い", limit: 100) == new.reversed() + [old[1], old[0]])
        let problems = try s.store.integrityProblems()
        #expect(problems.count == 1)
        #expect(
            problems.first?.contains("the search index is damaged (") == true
                && problems.first?.contains("above its segment's top \(old[0])") == true, "\(problems)")
        // Repair rebuilds the index with true tops.
        _ = try s.board.rebuildSearch()
        #expect(try s.ids("い", limit: 100) == every)
        #expect(try s.store.integrityProblems() == [])
    }

    @Test func schemaNineteenFindsEverySegmentsTopInItsLists() throws {
        // Batches of 50 and a small merge step: the last batch starts a merge it cannot finish,
        // so the upgrade meets a merge under way, and an edit's segment holds an old poster.
        let s = try SearchStore(searchMergeStep: 64)
        var ids: [Int64] = []
        for batch in 0..<7 { ids += try SearchSegmentTests.addBatch(s, (0..<50).map { "途中 \(batch) \($0)" }) }
        ids += try SearchSegmentTests.addBatch(s, (0..<8).map { "最後 \($0)" })
        _ = try s.board.edit(id: ids[3], contents: "途中 直した", hashtags: [])
        #expect(try !SearchSegmentTests.merges(s).isEmpty)
        let recorded = try Self.tops(s)
        let writer = try #require(try s.store.open()).writer
        try writer.withLock { db in
            try db.execute(NewerSchemas.undo(after: 18) + "PRAGMA user_version = 18")
        }
        let sources = Set(try SearchSegmentTests.tally(s, "SELECT source FROM search_merge").keys)
        // The upgrade finds the same tops (a merge's target's the highest of its sources' and
        // its own lists'), but for a source the merge has taken lists from: its top can only
        // be lower.
        _ = try SQLiteStore(folder: s.folder.path, create: false)
        let found = try Self.tops(s)
        #expect(Set(found.keys) == Set(recorded.keys))
        for (segment, top) in found {
            if sources.contains(segment) {
                #expect(top <= recorded[segment]!, "source \(segment)")
            } else {
                #expect(top == recorded[segment], "segment \(segment)")
            }
        }
        #expect(try s.board.search(query: "途中", limit: Int.max).count == 350)
        #expect(try s.store.integrityProblems() == [])
    }

    @Test func anUpgradeGivesAMergesTargetTheTopsOfTheListsStillToMoveIntoIt() throws {
        let s = try SearchStore()
        let first = try SearchSegmentTests.addBatch(s, (0..<10).map { "一 \($0)" })
        let second = try SearchSegmentTests.addBatch(s, (0..<10).map { "二 \($0)" })
        let writer = try #require(try s.store.open()).writer
        // At schema 18, a merge of the two had just started: its target holds nothing yet.
        let target = try writer.withLock { db in
            try db.execute(NewerSchemas.undo(after: 18) + "PRAGMA user_version = 18")
            try db.execute("INSERT INTO search_segment (level, posters) VALUES (1, 20)")
            let target = db.lastInsertedRowID
            try db.execute("INSERT INTO search_merge (source, target) SELECT id, \(target) FROM search_segment WHERE id < \(target)")
            return target
        }
        _ = try SQLiteStore(folder: s.folder.path, create: false)
        #expect(try Self.tops(s)[target] == second.max())
        #expect(try s.ids("一", limit: 100) == first.reversed())
        // The merge moves on with the next writes, and the target's lists stay below its top.
        for index in 0..<3 { try s.add("三 \(index)") }
        #expect(try s.ids("二", limit: 100) == second.reversed())
        #expect(try s.store.integrityProblems() == [])
    }
}
