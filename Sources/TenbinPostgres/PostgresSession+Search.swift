import TenbinKit

/// Search's reads: candidates from the posting lists (PostgresSession+SearchIndex.swift), and
/// keys in popular or trending order for the core's walk by votes or scores. The core rechecks
/// every candidate against its key, so a stale entry costs time, never a wrong answer, and the
/// answers are SQLite's.
extension PostgresSession {
    /// Keys read newest first, unfiltered, before the index is asked: a common word (one poster
    /// in a few) fills a page from them in one statement, where the index would hand over
    /// every segment's whole lists.
    static let walkBudget = 128

    /// Candidates newest first: the newest ``walkBudget`` keys below the cursor, unfiltered;
    /// then the posting lists of every term in every segment (one statement), intersected
    /// here, the hits' keys read in growing batches. All in this read's snapshot.
    func searchCandidates(_ terms: [IndexTerm], below: Int64?, visit: (SearchEntry) throws -> Bool) throws {
        var cursor = below ?? Int64.max
        guard !terms.isEmpty else {
            var batch = Self.walkBudget
            while let last = try walk(below: cursor, limit: batch, visit: visit) {
                cursor = last
                batch = min(batch * 4, 8192)
            }
            return
        }
        guard let last = try walk(below: cursor, limit: Self.walkBudget, visit: visit) else { return }
        cursor = last
        guard let cursors = try termCursors(terms) else { return }
        var hits = PostingIntersection(cursors, below: cursor)
        var batch = 64
        while true {
            var ids: [Int64] = []
            while ids.count < batch, let id = hits.next() { ids.append(id) }
            // A hit whose poster is gone (a stale entry) has no key and is passed over.
            for entry in try searchEntries(ids: ids) {
                guard try visit(entry) else { return }
            }
            guard ids.count == batch else { return }
            batch = min(batch * 4, 4096)
        }
    }

    /// Up to `limit` keys below `cursor`, newest first, unfiltered, each visited; the last id
    /// read, or nil when the walk is over (fewer rows than asked, or `visit` stopped). Both
    /// tables are bounded by the cursor, so the plan merges their primary keys from it down.
    private func walk(below cursor: Int64, limit: Int, visit: (SearchEntry) throws -> Bool) throws -> Int64? {
        let below = PostgresQuery.Shared(cursor)
        let rows = try select(
            """
            SELECT k.poster_id, k.key, p.good1 + p.good2 FROM search_key k JOIN poster p ON p.id = k.poster_id
            WHERE k.poster_id < \(below) AND p.id < \(below) ORDER BY k.poster_id DESC LIMIT \(unescaped: limit)
            """)
        for row in 0..<rows.count {
            guard try visit(SearchEntry(id: rows.int64(row, 0), key: rows.text(row, 1), votes: rows.int(row, 2))) else { return nil }
        }
        guard rows.count == limit else { return nil }
        return try rows.int64(rows.count - 1, 0)
    }

    /// Up to `limit` ids of posters holding every term, highest first (the intersection of
    /// the posting lists, as SQLite's).
    func searchCandidateIDs(_ terms: [IndexTerm], limit: Int) throws -> [Int64] {
        guard limit > 0 else { return [] }
        guard !terms.isEmpty else {
            let rows = try select("SELECT poster_id FROM search_key LIMIT \(unescaped: limit)")
            return try (0..<rows.count).map { try rows.int64($0, 0) }
        }
        guard let cursors = try termCursors(terms) else { return [] }
        var hits = PostingIntersection(cursors, below: nil)
        var ids: [Int64] = []
        while ids.count < limit, let id = hits.next() { ids.append(id) }
        return ids
    }

    /// Each term's cursor over every segment; nil when a term matches nothing. Every segment's
    /// blocks for every term are read in one statement (``blocksQuery(_:)``).
    private func termCursors(_ terms: [IndexTerm]) throws -> [TermCursor]? {
        var ranges: [ClosedRange<Int64>] = []
        var termOfRange: [Int] = []
        for (index, term) in terms.enumerated() {
            guard let pieces = term.pieceRanges else { return nil }
            ranges += pieces
            termOfRange += Array(repeating: index, count: pieces.count)
        }
        let rows = try select(Self.blocksQuery(ranges))
        // The blocks of each segment for each range, in order of first piece.
        var blocks: [SegmentRange: [(firstPiece: Int64, block: [UInt8])]] = [:]
        for row in 0..<rows.count {
            let key = try SegmentRange(segment: rows.int64(row, 0), range: rows.int(row, 1) - 1)
            try blocks[key, default: []].append((rows.int64(row, 2), rows.bytes(row, 3)))
        }
        var found = Array(repeating: [PostingCursor](), count: terms.count)
        for (key, segmentBlocks) in blocks {
            found[termOfRange[key.range]] += Self.segmentCursors(segmentBlocks, within: ranges[key.range])
        }
        var cursors: [TermCursor] = []
        for lists in found {
            let cursor = TermCursor(lists)
            guard cursor.current != nil else { return nil }
            cursors.append(cursor)
        }
        return cursors
    }

    /// One segment's blocks for one range of pieces.
    private struct SegmentRange: Hashable {
        let segment: Int64
        let range: Int
    }

    /// One segment's cursors for the pieces in `range`, from its blocks that can hold them
    /// (in order of first piece, as ``blocksQuery(_:)`` finds them).
    static func segmentCursors(_ blocks: [(firstPiece: Int64, block: [UInt8])], within range: ClosedRange<Int64>) -> [PostingCursor] {
        var found: [PostingCursor] = []
        for block in blocks.sorted(by: { $0.firstPiece < $1.firstPiece }) {
            PostingBlock.cursors(in: block.block, firstPiece: block.firstPiece, within: range, into: &found)
        }
        return found
    }

    /// In every segment, for each range of pieces (its 1-based place in `ranges`), the blocks
    /// that can hold its pieces: the last starting at or below its lowest piece, and every one
    /// starting after that up to its highest: (segment, range, first piece, block).
    ///
    /// `OFFSET 0` keeps the lookup a subquery of its own, planned as index probes per segment
    /// and range; flattened into the join, the generic plan of the prepared statement hashed a
    /// sequential scan of every block (58 ms at 1M posters against 2 ms, docs/benchmarks.md).
    static func blocksQuery(_ ranges: [ClosedRange<Int64>]) -> PostgresQuery {
        """
        SELECT s.id, r.n, b.piece, b.postings FROM search_segment s
        CROSS JOIN unnest(\(ranges.map(\.lowerBound))::bigint[], \(ranges.map(\.upperBound))::bigint[]) WITH ORDINALITY AS r(lo, hi, n)
        CROSS JOIN LATERAL (
            SELECT p.piece, p.postings FROM search_posting p WHERE p.segment = s.id AND p.piece <= r.hi
            AND p.piece >= coalesce((SELECT max(q.piece) FROM search_posting q WHERE q.segment = s.id AND q.piece <= r.lo), r.lo)
            OFFSET 0) b
        """
    }

    func searchEntries(ids: [Int64]) throws -> [SearchEntry] {
        guard !ids.isEmpty else { return [] }
        let rows = try select(
            """
            SELECT k.poster_id, k.key, p.good1 + p.good2, p.trend FROM search_key k JOIN poster p ON p.id = k.poster_id
            WHERE k.poster_id = ANY(\(ids)::bigint[])
            """)
        var byID: [Int64: SearchEntry] = [:]
        for row in 0..<rows.count {
            let entry = try SearchEntry(id: rows.int64(row, 0), key: rows.text(row, 1), votes: rows.int(row, 2), score: rows.int64(row, 3))
            byID[entry.id] = entry
        }
        return ids.compactMap { byID[$0] }
    }

    func searchEntriesByVotes(after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws {
        try searchEntriesRanked(order: .popular, after: after, visit: visit)
    }

    func searchEntriesByScore(after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws {
        try searchEntriesRanked(order: .trending, after: after, visit: visit)
    }

    /// Every poster's key in popular or trending order after `after`, in batches.
    private func searchEntriesRanked(order: FeedOrder, after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws {
        // Popular reads `poster_popular` as an index-only scan (schema step 6: the keys beside
        // the votes; a long one looked up), so it asks for no column outside it (a constant for
        // the score); trending reads `poster_trending` and looks the keys up.
        let (key, score) = order == .trending ? ("p.trend", "p.trend") : ("p.votes", "0::bigint")
        var cursor = after
        var batch = 256
        while true {
            // The limit is written into the text (one plan per batch size, sized for it); the
            // first batch, without a cursor, reads the index from its start.
            var condition: PostgresQuery = ""
            if let cursor {
                let value = order == .trending ? cursor.score : Int64(cursor.votes)
                condition = " WHERE (\(unescaped: key), p.id) < (\(value), \(cursor.id))"
            }
            let rows = try select(
                """
                SELECT p.id, coalesce(p.walk_key, (SELECT k.key FROM search_key k WHERE k.poster_id = p.id)), p.votes, \(unescaped: score)
                FROM poster p\(condition) ORDER BY \(unescaped: key) DESC, p.id DESC LIMIT \(unescaped: batch)
                """)
            for row in 0..<rows.count {
                let entry = try SearchEntry(
                    id: rows.int64(row, 0), key: rows.text(row, 1), votes: rows.int(row, 2), score: rows.int64(row, 3))
                guard try visit(entry) else { return }
            }
            guard rows.count == batch else { return }
            cursor = try FeedPosition(
                id: rows.int64(rows.count - 1, 0), votes: rows.int(rows.count - 1, 2), score: rows.int64(rows.count - 1, 3))
            batch = min(batch * 4, 4096)
        }
    }
}
