import TenbinKit

/// The search index (schema step 15): SQLite's posting lists (SQLiteStore+Search.swift), in
/// PostgreSQL's tables, replacing the GIN index of steps 2–6.
///
/// Every transaction that indexes posters — an import's batch, a `tenbin copy` batch, a post,
/// an edit, a step of readings — writes one *segment*: for each piece its posters hold, their
/// ids (``PostingCoding``), packed in blocks of about 4 KB (``PostingBlock``), one row of
/// `search_posting` each, keyed by segment and first piece, all in one statement. GIN took a
/// batch's 26 million entries one by one, three quarters of an import's time
/// (docs/benchmarks.md). Segments of a level are merged, eight at a time, in steps budgeted by
/// what the transaction wrote (``PostingMerge``), under a transaction-scoped advisory lock that
/// a write only tries: two servers never merge the same segments, and no write waits for
/// another's merge. An edited or deleted poster is marked in `search_stale` with the newest
/// segment its transaction saw; its ids there and in older segments are stale, left out by
/// merges and dropped by the core's recheck meanwhile.
///
/// A segment's `top` is the highest poster id it can hold (its batch's highest; a merge
/// target's, the highest of its sources'), so a search may read segments newest first.
extension PostgresSession {
    /// Schema step 15: the GIN index, the pieces it indexed (`grams`) and the functions only it
    /// served go; the index's tables come. `search_posting` keeps a block in its row (a block
    /// is about 4 KB, past the 2 KB at which PostgreSQL would move it out of line, and varints
    /// do not compress), so a block is read with its index entry's page.
    static let searchIndexSchemaSQL = """
        DROP INDEX IF EXISTS search_key_window;
        DROP FUNCTION IF EXISTS tenbin_search_popular(text[], text[], bigint, bigint, bigint, bigint);
        DROP FUNCTION IF EXISTS tenbin_search_newest(text[], text[], bigint, bigint, bigint);
        DROP FUNCTION IF EXISTS tenbin_search_tokens(bigint, text[]);
        ALTER TABLE search_key DROP COLUMN grams;
        CREATE TABLE search_segment (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            level integer NOT NULL,
            posters integer NOT NULL,
            top bigint NOT NULL
        );
        CREATE TABLE search_posting (
            segment bigint NOT NULL,
            piece bigint NOT NULL,
            postings bytea NOT NULL,
            PRIMARY KEY (segment, piece)
        ) WITH (toast_tuple_target = 8160);
        ALTER TABLE search_posting ALTER COLUMN postings SET STORAGE EXTERNAL;
        CREATE TABLE search_stale (
            poster_id bigint PRIMARY KEY,
            segment bigint NOT NULL
        );
        CREATE TABLE search_merge (
            source bigint PRIMARY KEY,
            target bigint NOT NULL
        );
        CREATE INDEX search_merge_target ON search_merge (target)
        """

    /// How many bytes of lists a write moves merges on by at least (``PostingMerge/budget(written:step:)``):
    /// a single post moves a big merge on a few milliseconds at a time, as on SQLite.
    static let searchMergeStep = 1 << 20

    /// Step 15, after its SQL: every stored key indexed, 20,000 posters a segment (as an
    /// import's batch), then the merges they are due, whole.
    static func indexAllKeys(on connection: Connection) throws {
        let session = PostgresSession(connection)
        var after: Int64 = 0
        while true {
            let rows = try connection.query(
                "SELECT poster_id, key FROM search_key WHERE poster_id > \(after) ORDER BY poster_id LIMIT 20000", binary: true)
            guard rows.count > 0 else { break }
            var ids: [Int64] = []
            var pieces: [[UInt64]] = []
            for row in 0..<rows.count {
                ids.append(try rows.int64(row, 0))
                pieces.append(SearchGrams.pieces(forKey: rows.text(row, 1)))
            }
            _ = try session.writeSegment(ids: ids, pieces: pieces)
            after = ids[ids.count - 1]
        }
        try session.mergeSearch(budget: Int.max)
    }

    // MARK: Writing

    /// Indexes posters whose keys this transaction wrote: one segment, then merges moved on.
    func indexSearch(ids: [Int64], search: [SearchRecord]) throws {
        let written = try writeSegment(ids: ids, pieces: search.map(\.pieces))
        guard written > 0 else { return }
        try mergeSearch(budget: PostingMerge.budget(written: written, step: Self.searchMergeStep))
    }

    /// Marks the index entries of `ids` stale: those in the newest segment this transaction
    /// sees and in older ones. Called before the transaction writes its own segment (which is
    /// newer), after the posters' rows are locked, so a write re-keying the same poster has
    /// committed its segment (then it is seen, and marked) or waits.
    ///
    /// Marking holds the merge lock shared (until the transaction ends), so no merge runs
    /// meanwhile: a merge reads every mark committed before it, and a mark sees every merge's
    /// target committed before it. Without that, a merge could copy an entry marked while it ran
    /// into a target newer than the mark, and the entry would outlive its mark unmarked: a
    /// search whose hits are answers without a recheck (``exactNewestPosters(_:below:offset:limit:)``)
    /// would count it.
    func markSearchStale(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try connection.query("SELECT pg_advisory_xact_lock_shared(\(PostgresSchema.lockSpace), \(PostgresSchema.searchMergeLock))")
        try connection.query(
            """
            INSERT INTO search_stale (poster_id, segment) SELECT i, (SELECT coalesce(max(id), 0) FROM search_segment)
            FROM unnest(\(ids)::bigint[]) AS i ON CONFLICT (poster_id) DO UPDATE SET segment = excluded.segment
            """)
    }

    /// Writes the segment of `ids`, each with its pieces, in one statement; returns the bytes
    /// of blocks written (0, and no segment, when they hold no piece).
    func writeSegment(ids: [Int64], pieces: [[UInt64]]) throws -> Int {
        let segment = SegmentBuilder(ids, pieces: pieces)
        guard !segment.isEmpty, let top = ids.max() else { return 0 }
        let blocks = BlockBatch()
        try segment.blocks { blocks.append($0, $1) }
        try connection.query(
            """
            WITH s AS (INSERT INTO search_segment (level, posters, top) VALUES (\(PostingMerge.level(posters: ids.count)), \
            \(ids.count), \(top)) RETURNING id)
            \(blocks.insert(segment: "(SELECT id FROM s)"))
            """)
        return blocks.bytes.count
    }

    /// The blocks of a segment or part of one, gathered to be written in one statement.
    final class BlockBatch {
        private(set) var pieces: [Int64] = []
        private(set) var offsets: [Int32] = []
        private(set) var lengths: [Int32] = []
        /// Every block, end to end.
        private(set) var bytes: [UInt8] = []

        var isEmpty: Bool { pieces.isEmpty }

        func append(_ firstPiece: UInt64, _ block: [UInt8]) {
            pieces.append(Int64(bitPattern: firstPiece))
            // 1-based, as `substring` counts.
            offsets.append(Int32(bytes.count + 1))
            lengths.append(Int32(block.count))
            bytes.append(contentsOf: block)
        }

        /// The statement inserting them into `segment` (an SQL expression): the blocks travel
        /// as one `bytea` and are cut apart on the server (libpq binds no array of `bytea`).
        func insert(segment: PostgresQuery) -> PostgresQuery {
            """
            INSERT INTO search_posting (segment, piece, postings)
            SELECT \(segment), b.p, substring(\(bytes)::bytea FROM b.o FOR b.n)
            FROM unnest(\(pieces)::bigint[], \(offsets)::int[], \(lengths)::int[]) AS b(p, o, n)
            """
        }
    }

    // MARK: Merging

    /// Starts the merges due and moves those under way on, smallest first, until about `budget`
    /// bytes of lists have been read (as SQLite's `merge(budget:)`). Only while holding the
    /// merge lock, tried, not waited for: another transaction merging now (or marking entries
    /// stale, ``markSearchStale(_:)``) leaves them to the next write.
    func mergeSearch(budget: Int) throws {
        let locked = try connection.query(
            "SELECT pg_try_advisory_xact_lock(\(PostgresSchema.lockSpace), \(PostgresSchema.searchMergeLock))"
        ).bool(0, 0)
        guard locked else { return }
        var budget = budget
        try startMerges()
        while budget > 0 {
            let rows = try connection.query(
                "SELECT s.id FROM search_segment s WHERE s.id IN (SELECT target FROM search_merge) ORDER BY s.posters, s.id")
            var finished = false
            for row in 0..<rows.count where budget > 0 {
                if try stepMerge(into: rows.int64(row, 0), budget: &budget) { finished = true }
            }
            guard finished else { return }
            try startMerges()
        }
    }

    /// Starts a merge of the oldest ``PostingMerge/segmentsPerMerge`` segments of each level
    /// that has that many outside any merge: their (empty) target is made, with their posters
    /// and their highest `top`, and `search_merge` names it for each of them.
    private func startMerges() throws {
        let free = "NOT EXISTS (SELECT 1 FROM search_merge m WHERE m.source = s.id OR m.target = s.id)"
        while true {
            let level = try connection.query(
                """
                SELECT level FROM search_segment s WHERE \(unescaped: free) GROUP BY level
                HAVING count(*) >= \(PostingMerge.segmentsPerMerge) ORDER BY level LIMIT 1
                """)
            guard level.count > 0 else { return }
            let rows = try connection.query(
                """
                SELECT id, posters, top FROM search_segment s WHERE level = \(try level.int(0, 0)) AND \(unescaped: free)
                ORDER BY id LIMIT \(PostingMerge.segmentsPerMerge)
                """)
            var sources: [Int64] = []
            var posters = 0
            var top = Int64(0)
            for row in 0..<rows.count {
                sources.append(try rows.int64(row, 0))
                posters += try rows.int(row, 1)
                top = max(top, try rows.int64(row, 2))
            }
            try connection.query(
                """
                WITH target AS (
                    INSERT INTO search_segment (level, posters, top) VALUES (\(PostingMerge.level(posters: posters)), \(posters), \(top))
                    RETURNING id)
                INSERT INTO search_merge (source, target) SELECT s, target.id FROM unnest(\(sources)::bigint[]) AS s, target
                """)
        }
    }

    /// Moves the merge into `target` on (as SQLite's `stepMerge(into:budget:)`): the sources'
    /// lists, in order of piece, merged into the target's blocks, stale ids left out, until
    /// about `budget` bytes have been read, and taken out of the sources. Returns true when the
    /// sources are used up: they are deleted, and so are the merge and the stale marks no
    /// remaining segment needs.
    private func stepMerge(into target: Int64, budget: inout Int) throws -> Bool {
        let rows = try connection.query("SELECT source FROM search_merge WHERE target = \(target) ORDER BY source")
        let sources = try (0..<rows.count).map { try rows.int64($0, 0) }
        guard let oldest = sources.first else { return true }
        var stale: [Int64: Int64] = [:]
        let marks = try connection.query("SELECT poster_id, segment FROM search_stale WHERE segment >= \(oldest)", binary: true)
        for row in 0..<marks.count { stale[try marks.int64(row, 0)] = try marks.int64(row, 1) }
        let merged = BlockBatch()
        var blocks = PostingBlock.Writer(flush: { merged.append($0, $1) })
        // The newest segment first (``PostingMerge/step(_:stale:budget:into:)``).
        var readers = try sources.reversed().map { try segmentEntries($0) }
        try PostingMerge.step(&readers, stale: stale, budget: &budget, into: &blocks)
        if !merged.isEmpty { try connection.query(merged.insert(segment: "\(target)::bigint")) }
        let rests = readers.map(\.rest)
        readers.removeAll()
        guard rests.allSatisfy({ $0 == nil }) else {
            for (segment, rest) in zip(sources.reversed(), rests) { try keep(rest, of: segment) }
            return false
        }
        try connection.query(
            """
            WITH blocks AS (DELETE FROM search_posting WHERE segment = ANY(\(sources)::bigint[])),
            segments AS (DELETE FROM search_segment WHERE id = ANY(\(sources)::bigint[]))
            DELETE FROM search_merge WHERE target = \(target)
            """)
        try connection.execute(
            "DELETE FROM search_stale WHERE segment < (SELECT coalesce(min(id), 9223372036854775807) FROM search_segment)")
        return true
    }

    /// Takes what a merge's step read out of a source: its blocks before the one the step
    /// stopped in are deleted, and that block is written again holding only the lists not
    /// read (under the first of their pieces). A source the step used up loses every block.
    private func keep(_ rest: SegmentEntries.Rest?, of segment: Int64) throws {
        guard let rest else {
            try connection.query("DELETE FROM search_posting WHERE segment = \(segment)")
            return
        }
        let rewrite = rest.lists.first.map { Int64(bitPattern: $0.piece) != rest.block } ?? false
        try connection.query(
            """
            DELETE FROM search_posting WHERE segment = \(segment) AND (piece < \(rest.block) OR (piece = \(rest.block) AND \(unescaped: rewrite ? "true" : "false")))
            """)
        guard rewrite else { return }
        let kept = BlockBatch()
        var blocks = PostingBlock.Writer(flush: { kept.append($0, $1) })
        for list in rest.lists { try blocks.append(list.piece, list: list.bytes) }
        try blocks.finish()
        try connection.query(kept.insert(segment: "\(segment)::bigint"))
    }

    /// A reader of `segment`'s lists for a merge, fetching its blocks in order, a few hundred
    /// at a time.
    private func segmentEntries(_ segment: Int64) throws -> SegmentEntries {
        let pager = BlockPager(connection: connection, segment: segment)
        return try SegmentEntries(
            segment: segment, rows: { try pager.nextBlock() },
            damaged: { [connection] in
                StoreError(.damaged("\($0); `tenbin check --repair` rebuilds the index"), at: connection.target.description)
            })
    }

    /// Hands over one segment's blocks in order of first piece, fetched in pages.
    private final class BlockPager {
        let connection: Connection
        let segment: Int64
        private var rows: [(piece: Int64, block: [UInt8])] = []
        private var read = 0
        private var after = Int64.min
        private var done = false
        static let page = 256

        init(connection: Connection, segment: Int64) {
            self.connection = connection
            self.segment = segment
        }

        func nextBlock() throws -> (piece: Int64, block: [UInt8])? {
            if read == rows.count {
                guard !done else { return nil }
                let fetched = try connection.query(
                    """
                    SELECT piece, postings FROM search_posting WHERE segment = \(segment) AND piece > \(after)
                    ORDER BY piece LIMIT \(unescaped: Self.page)
                    """, binary: true)
                rows = try (0..<fetched.count).map { (try fetched.int64($0, 0), fetched.bytes($0, 1)) }
                read = 0
                done = rows.count < Self.page
                guard let last = rows.last else { return nil }
                after = last.piece
            }
            read += 1
            return rows[read - 1]
        }
    }
}

extension PostgresSession {
    /// What `tenbin check` finds wrong with the search index's structure
    /// (``SearchIndexCheck``, as on SQLite): a merge naming segments that do not exist, a block
    /// in no segment, a block or list that cannot be read, a poster above its segment's top.
    /// Reads only, block by block in pages.
    func searchIndexProblems() throws -> [String] {
        let segmentRows = try connection.query("SELECT id, top FROM search_segment", binary: true)
        var tops: [Int64: Int64] = [:]
        for row in 0..<segmentRows.count { tops[try segmentRows.int64(row, 0)] = try segmentRows.int64(row, 1) }
        let mergeRows = try connection.query("SELECT source FROM search_merge UNION SELECT target FROM search_merge", binary: true)
        var check = SearchIndexCheck(segmentTops: tops, mergeSegments: try (0..<mergeRows.count).map { try mergeRows.int64($0, 0) })
        var after = (segment: Int64.min, piece: Int64.min)
        while true {
            let rows = try connection.query(
                """
                SELECT segment, piece, postings FROM search_posting WHERE (segment, piece) > (\(after.segment), \(after.piece))
                ORDER BY segment, piece LIMIT 2000
                """, binary: true)
            guard rows.count > 0 else { break }
            for row in 0..<rows.count {
                check.check(segment: try rows.int64(row, 0), firstPiece: try rows.int64(row, 1), block: rows.bytes(row, 2))
            }
            after = (try rows.int64(rows.count - 1, 0), try rows.int64(rows.count - 1, 1))
        }
        return check.problems
    }
}
