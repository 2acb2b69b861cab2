import TenbinKit

/// Search in SQLite: each poster's normalised key, and an index of its pieces.
///
/// `search_key` holds the key (``SearchText/key(contents:hashtags:)``), the one exact record
/// of what a poster can be found by. The index maps each piece of a key (``SearchGrams``) to
/// the posters holding it, and is used only to narrow candidates: the core rechecks every hit
/// against its key, so a stale entry can cost time but never a wrong result. Both change in
/// the same transaction as the poster.
///
/// The index is tenbin's own (schema 8; FTS5 before). Every transaction that indexes posters
/// — an import's batch, a post, an edit — writes one *segment*: for each piece its batch
/// holds, the posters' ids (``PostingCoding``), packed in blocks of about 4 KB, one row of
/// `search_posting` each, keyed by segment and first piece (``PostingBlock``). The lists are
/// built in memory (``SegmentBuilder``) and written in piece order, so a batch of 20,000
/// posters appends a few hundred rows at the end of the table where FTS5 inserted two
/// million tokens into its hash one by one. Segments of a size class (a *level*: 1–7
/// posters, 8–63, …) are merged into one as soon as there are eight, so a store of a million
/// posters has a few dozen at most, and a term is a few dozen row lookups.
///
/// An edited or deleted poster is recorded in `search_stale` with the newest segment at that
/// moment: its ids in that segment and older ones are stale (the recheck drops them), and
/// merges leave them out.
extension SQLiteSession {
    static let searchKeySchema = """
        CREATE TABLE search_key (
            poster_id INTEGER PRIMARY KEY REFERENCES poster(id) ON DELETE CASCADE,
            key TEXT NOT NULL
        );
        """

    /// The index's tables (schema 8).
    static let searchIndexSchema = """
        CREATE TABLE search_segment (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            level INTEGER NOT NULL,
            posters INTEGER NOT NULL
        );
        CREATE TABLE search_posting (
            segment INTEGER NOT NULL,
            piece INTEGER NOT NULL,
            postings BLOB NOT NULL,
            PRIMARY KEY (segment, piece)
        ) WITHOUT ROWID;
        CREATE TABLE search_stale (
            poster_id INTEGER PRIMARY KEY,
            segment INTEGER NOT NULL
        );
        """

    /// Schema 9: merges under way, one row per segment being merged, naming the segment it
    /// goes into (``stepMerge(into:budget:)``).
    static let searchMergeSchema = """
        CREATE TABLE search_merge (
            source INTEGER PRIMARY KEY,
            target INTEGER NOT NULL
        );
        CREATE INDEX search_merge_target ON search_merge(target);
        """

    /// Schema 19: each segment's top, the highest poster id its lists can hold
    /// (``IndexSegment``), so a search reads a segment only once it has gone below its top.
    /// `Int64.max` (the default) means not known: such a segment is read first, as every
    /// segment was before. The migration finds each segment's top in its lists
    /// (``recordSegmentTops(_:)``).
    static let segmentTopColumn = """
        ALTER TABLE search_segment ADD COLUMN top INTEGER NOT NULL DEFAULT 9223372036854775807;

        """

    /// Records a poster's key and pieces (inside its transaction).
    func indexSearch(id: Int64, _ search: SearchRecord) throws {
        try indexSearch(ids: [id], search: [search])
    }

    /// Records posters' keys, and their pieces as one new segment (inside their transaction),
    /// with the next posters of an older store given their readings (``stepReadings()``).
    func indexSearch(ids: [Int64], search: [SearchRecord]) throws {
        let waiting = try stepReadings()
        let ids = ids + waiting.ids
        let search = search + waiting.records
        let insertKey = try db.statement(Self.searchKeyInsert)
        for (id, record) in zip(ids, search) {
            insertKey.reset()
            try insertKey.bind(id, at: 1)
            try insertKey.bind(record.key, at: 2)
            try insertKey.run()
        }
        try write(SegmentBuilder(ids, pieces: search.map(\.pieces)), top: ids.max())
    }

    /// Forgets a poster's key and marks its index entries stale (inside the transaction that
    /// deletes or edits it).
    func removeSearch(id: Int64) throws {
        try db.statement("DELETE FROM search_key WHERE poster_id = ?").bind(id).run()
        guard db.changes > 0 else { return }
        try db.statement(
            "INSERT OR REPLACE INTO search_stale (poster_id, segment) SELECT ?, coalesce(max(id), 0) FROM search_segment"
        ).bind(id).run()
    }

    /// Writes a built segment whose highest poster id is `top`, then moves merges on
    /// (``mergeBudget(written:)``); migration 8, which ran before `search_merge` and tops
    /// existed, writes without either (`top` nil).
    private func write(_ segment: SegmentBuilder, top: Int64?) throws {
        guard !segment.isEmpty else { return }
        let insert = try blockInserter(segment: newSegment(posters: segment.posters, top: top))
        var written = 0
        try segment.blocks { piece, block in
            written += block.count
            try insert(piece, block)
        }
        if top != nil { try merge(budget: mergeBudget(written: written)) }
    }

    /// Starts a merge for every level that reached ``PostingMerge/segmentsPerMerge`` segments, and moves
    /// the merges under way on, smallest first, until about `budget` bytes of lists have been
    /// read (one that finishes may complete a level of its own, which starts another).
    func merge(budget: Int) throws {
        var budget = budget
        try startMerges()
        while budget > 0 {
            let targets = try db.statement(
                "SELECT s.id FROM search_segment s WHERE s.id IN (SELECT target FROM search_merge) ORDER BY s.posters, s.id"
            ).map { $0.int64(0) }
            var finished = false
            for target in targets where budget > 0 {
                if try stepMerge(into: target, budget: &budget) { finished = true }
            }
            guard finished else { return }
            try startMerges()
        }
    }

    /// Migration 9: the merges migration 8's segments are due, whole (before tops existed).
    @Sendable static func mergeWhole(_ db: Database) throws {
        try SQLiteSession(db, segmentTops: false).merge(budget: Int.max)
    }

    /// How many bytes of lists a transaction that wrote `written` bytes of new ones moves
    /// through merges (``PostingMerge/budget(written:step:)``, at least ``searchMergeStep``).
    func mergeBudget(written: Int) -> Int {
        PostingMerge.budget(written: written, step: searchMergeStep)
    }

    /// Starts a merge of the oldest ``PostingMerge/segmentsPerMerge`` segments of each level that has that
    /// many outside any merge: their target segment is made (empty), and `search_merge` names
    /// it for each of them.
    private func startMerges() throws {
        let free = "NOT EXISTS (SELECT 1 FROM search_merge m WHERE m.source = s.id OR m.target = s.id)"
        while let level = try db.statement(
            "SELECT level FROM search_segment s WHERE \(free) GROUP BY level HAVING count(*) >= ? ORDER BY level LIMIT 1"
        ).bind(PostingMerge.segmentsPerMerge).first({ $0.int(0) }) {
            let segments = try db.statement(
                "SELECT id, posters, \(segmentTops ? "top" : "NULL") FROM search_segment s WHERE level = ? AND \(free) ORDER BY id LIMIT ?"
            ).bind(level, PostingMerge.segmentsPerMerge).map { (id: $0.int64(0), posters: $0.int(1), top: $0.int64(2)) }
            // The target holds its sources' lists: the highest of their tops is its own.
            let target = try newSegment(
                posters: segments.reduce(0) { $0 + $1.posters }, top: segmentTops ? segments.map(\.top).max() : nil)
            let record = try db.statement("INSERT INTO search_merge (source, target) VALUES (?, ?)")
            for segment in segments {
                record.reset()
                try record.bind(segment.id, at: 1)
                try record.bind(target, at: 2)
                try record.run()
            }
        }
    }

    /// Moves a merge into `target` on: the lists of its sources, in order of piece, are
    /// merged into the target's blocks (stale ids left out) until about `budget` bytes have
    /// been read, and taken out of the sources, so every piece is in the target or in the
    /// sources, never both, and a query reading every segment finds each list once. Returns
    /// true when the sources are used up: they are deleted, the merge is forgotten and so are
    /// the stale marks no remaining segment needs.
    private func stepMerge(into target: Int64, budget: inout Int) throws -> Bool {
        let sources = try db.statement("SELECT source FROM search_merge WHERE target = ? ORDER BY source").bind(target)
            .map { $0.int64(0) }
        guard let oldest = sources.first else { return true }
        var stale: [Int64: Int64] = [:]
        let marks = try db.statement("SELECT poster_id, segment FROM search_stale WHERE segment >= ?").bind(oldest)
        while try marks.step() { stale[marks.int64(0)] = marks.int64(1) }
        var blocks = PostingBlock.Writer(flush: try blockInserter(segment: target))
        // The newest segment first (``PostingMerge/step(_:stale:budget:into:)``).
        var readers = try sources.reversed().map { try segmentEntries($0) }
        try PostingMerge.step(&readers, stale: stale, budget: &budget, into: &blocks)
        let rests = readers.map(\.rest)
        readers.removeAll()
        guard rests.allSatisfy({ $0 == nil }) else {
            for (segment, rest) in zip(sources.reversed(), rests) { try keep(rest, of: segment) }
            return false
        }
        for segment in sources {
            try db.statement("DELETE FROM search_posting WHERE segment = ?").bind(segment).run()
            try db.statement("DELETE FROM search_segment WHERE id = ?").bind(segment).run()
        }
        try db.statement("DELETE FROM search_merge WHERE target = ?").bind(target).run()
        try db.execute("DELETE FROM search_stale WHERE segment < (SELECT coalesce(min(id), 9223372036854775807) FROM search_segment)")
        return true
    }

    /// Takes what a merge's step read out of a source segment: its blocks before the one the
    /// step stopped in are deleted, and that block is written again holding only the lists
    /// not read (under the first of their pieces). A source the step used up loses every block.
    private func keep(_ rest: SegmentEntries.Rest?, of segment: Int64) throws {
        guard let rest else {
            try db.statement("DELETE FROM search_posting WHERE segment = ?").bind(segment).run()
            return
        }
        try db.statement("DELETE FROM search_posting WHERE segment = ? AND piece < ?").bind(segment, rest.block).run()
        guard let first = rest.lists.first, Int64(bitPattern: first.piece) != rest.block else { return }
        try db.statement("DELETE FROM search_posting WHERE segment = ? AND piece = ?").bind(segment, rest.block).run()
        var blocks = PostingBlock.Writer(flush: try blockInserter(segment: segment))
        for list in rest.lists { try blocks.append(list.piece, list: list.bytes) }
        try blocks.finish()
    }

    /// A reader of `segment`'s lists for a merge.
    private func segmentEntries(_ segment: Int64) throws -> SegmentEntries {
        let rows = try db.freshStatement("SELECT piece, postings FROM search_posting WHERE segment = ? ORDER BY piece").bind(segment)
        return try SegmentEntries(
            segment: segment, rows: { try rows.step() ? (rows.int64(0), rows.blob(1)) : nil },
            damaged: { SQLiteError(code: 11, message: "\($0); `tenbin check --repair` rebuilds the index") })
    }

    /// A new, empty segment for `posters` posters, the highest `top` (none before schema 19).
    private func newSegment(posters: Int, top: Int64?) throws -> Int64 {
        let level = PostingMerge.level(posters: posters)
        if let top {
            try db.statement("INSERT INTO search_segment (level, posters, top) VALUES (?, ?, ?)").bind(level, posters, top).run()
        } else {
            try db.statement("INSERT INTO search_segment (level, posters) VALUES (?, ?)").bind(level, posters).run()
        }
        return db.lastInsertedRowID
    }

    /// Stores a block of `segment` (given its first piece) as a row.
    private func blockInserter(segment: Int64) throws -> (UInt64, [UInt8]) throws -> Void {
        let insert = try db.statement("INSERT INTO search_posting (segment, piece, postings) VALUES (?, ?, ?)")
        return { piece, block in
            insert.reset()
            try insert.bind(segment, at: 1)
            try insert.bind(Int64(bitPattern: piece), at: 2)
            try insert.bind(block, at: 3)
            try insert.run()
        }
    }

    /// Migration 8: indexes every stored key, 20,000 posters a segment (as an import's batch),
    /// without merging (migration 9 does).
    @Sendable static func indexAllKeys(_ db: Database) throws {
        try indexAllKeys(db, slice: 20_000)
    }

    /// Migration 8's work in slices of `size` posters, as schema 8 had it: no merges, no tops.
    static func indexAllKeys(_ db: Database, slice size: Int) throws {
        let session = SQLiteSession(db, segmentTops: false)
        try forEachKey(in: db, slice: size) { keys in
            try session.write(SegmentBuilder(keys.map(\.0), pieces: keys.map { SearchGrams.pieces(forKey: $0.1) }), top: nil)
        }
    }

    /// Migration 19: each segment's top, the highest first id of its lists (a list's first
    /// id is its highest); a merge's target takes its sources' too, for the lists still to
    /// move into it. A segment whose blocks cannot be read keeps `Int64.max`, read first
    /// (`tenbin check` names the damage).
    @Sendable static func recordSegmentTops(_ db: Database) throws {
        var tops: [Int64: Int64] = [:]
        var damaged: Set<Int64> = []
        try db.statement("SELECT id FROM search_segment").map { $0.int64(0) }.forEach { tops[$0] = 0 }
        let rows = try db.statement("SELECT segment, piece, postings FROM search_posting")
        while try rows.step() {
            let segment = rows.int64(0)
            let block = rows.blob(2)
            var highest = tops[segment] ?? 0
            let read = PostingBlock.forEach(block, firstPiece: UInt64(bitPattern: rows.int64(1))) { _, list in
                var offset = list.lowerBound
                guard let first = PostingCoding.varint(block, at: &offset, end: list.upperBound), first <= UInt64(Int64.max) else {
                    return false
                }
                highest = max(highest, Int64(first))
                return true
            }
            if read { tops[segment] = highest } else { damaged.insert(segment) }
        }
        rows.reset()
        for (target, source) in try db.statement("SELECT target, source FROM search_merge").map({ ($0.int64(0), $0.int64(1)) }) {
            let sourceTop = damaged.contains(source) ? Int64.max : tops[source] ?? Int64.max
            tops[target] = max(tops[target] ?? 0, sourceTop)
        }
        let update = try db.statement("UPDATE search_segment SET top = ? WHERE id = ?")
        for (segment, top) in tops where !damaged.contains(segment) {
            update.reset()
            try update.bind(top, at: 1)
            try update.bind(segment, at: 2)
            try update.run()
        }
    }

    /// Calls `body` with every stored key, `slice` at a time in order of poster id.
    static func forEachKey(in db: Database, slice size: Int, _ body: ([(Int64, String)]) throws -> Void) throws {
        let slice = try db.statement("SELECT poster_id, key FROM search_key WHERE poster_id > ? ORDER BY poster_id LIMIT ?")
        var last = Int64.min
        while true {
            slice.reset()
            let keys = try slice.bind(last, size).map { ($0.int64(0), $0.text(1)) }
            guard let end = keys.last?.0 else { return }
            try body(keys)
            last = end
        }
    }

    // MARK: Reading

    /// Each term's cursor over every segment, reading a segment's blocks only when the term
    /// reaches its top (``TermCursor``); nil when a term matches nothing.
    private func termCursors(_ terms: [IndexTerm]) throws -> [TermCursor]? {
        let segments = try db.statement("SELECT id, top FROM search_segment").map { IndexSegment(id: $0.int64(0), top: $0.int64(1)) }
        // In segment ?3, the blocks that can hold pieces from ?1 to ?2: the last starting at or
        // before ?1, and every one starting after it up to ?2.
        let blocks = try db.statement(
            """
            SELECT piece, postings FROM search_posting WHERE segment = ?3 AND piece <= ?2
            AND piece >= coalesce((SELECT max(piece) FROM search_posting WHERE segment = ?3 AND piece <= ?1), ?1)
            """)
        var cursors: [TermCursor] = []
        for term in terms {
            guard let ranges = term.pieceRanges else { return nil }
            let cursor = try TermCursor(segments: segments) { segment in
                var found: [PostingCursor] = []
                for range in ranges {
                    blocks.reset()
                    try blocks.bind(range.lowerBound, at: 1)
                    try blocks.bind(range.upperBound, at: 2)
                    try blocks.bind(segment, at: 3)
                    while try blocks.step() {
                        PostingBlock.cursors(in: blocks.blob(1), firstPiece: blocks.int64(0), within: range, into: &found)
                    }
                }
                blocks.reset()
                return found
            }
            guard cursor.current != nil else { return nil }
            cursors.append(cursor)
        }
        return cursors
    }

    /// The ids holding every term, highest first, below `below`, until `visit` returns false.
    private func indexHits(_ terms: [IndexTerm], below: Int64?, visit: (Int64) throws -> Bool) throws {
        guard let cursors = try termCursors(terms) else { return }
        var hits = PostingIntersection(cursors, below: below)
        while let id = try hits.next() {
            guard try visit(id) else { return }
        }
    }

    func searchCandidates(_ terms: [IndexTerm], below: Int64?, visit: (SearchEntry) throws -> Bool) throws {
        guard !terms.isEmpty else {
            let statement = try db.statement(
                """
                SELECT k.poster_id, k.key, p.good1 + p.good2 FROM search_key k JOIN poster p ON p.id = k.poster_id
                WHERE k.poster_id < ? ORDER BY k.poster_id DESC
                """
            ).bind(below ?? Int64.max)
            defer { statement.reset() }
            while try statement.step() {
                guard try visit(SearchEntry(id: statement.int64(0), key: statement.text(1), votes: statement.int(2))) else { return }
            }
            return
        }
        // A hit whose poster is gone (a stale entry) has no key row and is passed over.
        let entry = try db.statement(
            "SELECT k.key, p.good1 + p.good2 FROM search_key k JOIN poster p ON p.id = k.poster_id WHERE k.poster_id = ?")
        try indexHits(terms, below: below) { id in
            entry.reset()
            try entry.bind(id, at: 1)
            guard try entry.step() else { return true }
            return try visit(SearchEntry(id: id, key: entry.text(0), votes: entry.int(1)))
        }
        entry.reset()
    }

    func searchCandidateIDs(_ terms: [IndexTerm], limit: Int) throws -> [Int64] {
        guard !terms.isEmpty else {
            return try db.statement("SELECT poster_id FROM search_key LIMIT ?").bind(limit).map { $0.int64(0) }
        }
        var ids: [Int64] = []
        guard limit > 0 else { return ids }
        try indexHits(terms, below: nil) { id in
            ids.append(id)
            return ids.count < limit
        }
        return ids
    }

    func searchEntries(ids: [Int64]) throws -> [SearchEntry] {
        guard !ids.isEmpty else { return [] }
        return try db.statement(
            """
            SELECT k.poster_id, k.key, p.good1 + p.good2, p.trend FROM search_key k JOIN poster p ON p.id = k.poster_id
            WHERE k.poster_id IN (SELECT value FROM json_each(?))
            """
        ).bind(Self.idList(ids)).map { SearchEntry(id: $0.int64(0), key: $0.text(1), votes: $0.int(2), score: $0.int64(3)) }
    }

    /// Every poster's key in popular order after `after`, part by part (``SQLiteSession/PopularPart``).
    func searchEntriesByVotes(after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws {
        try searchEntries(order: .popular, after: after, visit: visit)
    }

    /// Every poster's key in trending order after `after`, part by part (``SQLiteSession/PopularPart``).
    func searchEntriesByScore(after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws {
        try searchEntries(order: .trending, after: after, visit: visit)
    }

    private func searchEntries(order: FeedOrder, after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws {
        for part in PopularPart.following(after, order: order) {
            let statement = try db.statement(
                """
                SELECT p.id, k.key, p.good1 + p.good2, p.trend FROM poster p JOIN search_key k ON k.poster_id = p.id
                WHERE \(part.condition) ORDER BY \(part.orderBy)
                """
            ).bind(part.bindings)
            defer { statement.reset() }
            while try statement.step() {
                let entry = SearchEntry(id: statement.int64(0), key: statement.text(1), votes: statement.int(2), score: statement.int64(3))
                guard try visit(entry) else { return }
            }
        }
    }

    /// What `tenbin check` finds wrong with search: posters without a key, keys without a
    /// poster, and the index's structure (every list readable, every row in a segment that
    /// exists). All reads: a read-only store is checked whole (FTS5's check was an INSERT,
    /// which a read-only store refused, so through schema 7 it was skipped there).
    func searchProblems() throws -> [String] {
        var problems = try db.statement(
            "SELECT p.id FROM poster p WHERE NOT EXISTS (SELECT 1 FROM search_key k WHERE k.poster_id = p.id)"
        ).map { "poster \($0.int64(0)) has no search key; search cannot find it" }
        problems += try db.statement(
            "SELECT k.poster_id FROM search_key k WHERE NOT EXISTS (SELECT 1 FROM poster p WHERE p.id = k.poster_id)"
        ).map { "a search key remains for deleted poster \($0.int64(0))" }
        var tops: [Int64: Int64] = [:]
        for (segment, top) in try db.statement("SELECT id, top FROM search_segment").map({ ($0.int64(0), $0.int64(1)) }) {
            tops[segment] = top
        }
        let merges = try db.statement("SELECT source FROM search_merge UNION SELECT target FROM search_merge").map { $0.int64(0) }
        var check = SearchIndexCheck(segmentTops: tops, mergeSegments: merges)
        let rows = try db.statement("SELECT segment, piece, postings FROM search_posting")
        defer { rows.reset() }
        while try rows.step() {
            check.check(segment: rows.int64(0), firstPiece: rows.int64(1), block: rows.blob(2))
        }
        return problems + check.problems
    }
}

extension SQLiteStore {
    /// The index blocks of one segment of `records` under `ids`, each with its first piece,
    /// as a commit builds them (`tenbin-bench`'s import floor times building them, and stages
    /// them to time SQLite writing them alone).
    package static func searchIndexBlocks(ids: [Int64], records: [SearchRecord]) -> [(firstPiece: Int64, block: [UInt8])] {
        let segment = SegmentBuilder(ids, pieces: records.map(\.pieces))
        var blocks: [(firstPiece: Int64, block: [UInt8])] = []
        // The closure does not throw.
        try! segment.blocks { blocks.append((Int64(bitPattern: $0), $1)) }
        return blocks
    }
}
