import TenbinKit

/// PostgreSQL's search index from schema step 14: tenbin's own posting lists, as SQLite's
/// (schema 8), in place of the GIN index over each key's pieces.
///
/// Every transaction that indexes posters — an import's batch, a copy's, a post, an edit, a
/// rebuild's slice — writes one *segment*: for each piece its posters hold, their ids
/// (``PostingCoding``), packed in blocks of about 4 KB (``PostingBlock``), one `bytea` row of
/// `search_posting` each, keyed by segment and first piece. The lists are built in Swift
/// (``SegmentBuilder``) and the blocks go in one statement, so a batch of 20,000 posters is a
/// few hundred rows where the GIN index took two million entries one by one (96% of an
/// import's time). Segments of a level are merged eight into one, a step at a time, as on
/// SQLite (``PostingMerge``); merges take an advisory lock, and a write that finds another
/// merging leaves the merge to it. A search reads the blocks that can hold its terms' pieces,
/// in every segment, in one statement, and intersects the lists newest first in Swift,
/// stopping once the page is full (``PostgresSession/searchCandidates(_:below:visit:)``).
///
/// An edited or deleted poster's key row is marked in `search_stale` by a trigger, with the
/// newest segment then (its ids there and in older segments are stale: merges leave them out;
/// a search rechecks every candidate against its key, so a stale id costs time, never an
/// answer). Readers run in one snapshot, and a merge's step moves lists from its sources to
/// its target in one transaction, so a reader finds each list once.
extension PostgresSession {
    /// Schema step 14: the index's tables, the stale trigger, and GIN's index and the
    /// functions built on it dropped with the key's pieces (``fillPostingIndex(on:)`` then
    /// indexes every key). A block stays in its row, uncompressed (its varints do not compress,
    /// and an out-of-line value is a second lookup per block).
    static let postingIndexSchemaSQL = """
        CREATE TABLE search_segment (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            level integer NOT NULL,
            posters integer NOT NULL
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
        CREATE INDEX search_merge_target ON search_merge(target);
        CREATE FUNCTION tenbin_search_stale() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO search_stale (poster_id, segment) SELECT OLD.poster_id, coalesce(max(id), 0) FROM search_segment
            ON CONFLICT (poster_id) DO UPDATE SET segment = excluded.segment;
            RETURN NULL;
        END $$;
        CREATE TRIGGER search_key_stale AFTER DELETE OR UPDATE ON search_key FOR EACH ROW EXECUTE FUNCTION tenbin_search_stale();
        DROP FUNCTION IF EXISTS tenbin_search_popular, tenbin_search_newest;
        DROP INDEX IF EXISTS search_key_window;
        DROP FUNCTION IF EXISTS tenbin_search_tokens;
        ALTER TABLE search_key DROP COLUMN IF EXISTS grams
        """

    /// Schema step 14's fill: every stored key indexed, 20,000 posters a segment (as an
    /// import's batch), and the merges they make done whole.
    static func fillPostingIndex(on connection: Connection) throws {
        let session = PostgresSession(connection)
        session.isWriting = true
        var after: Int64 = 0
        while true {
            let rows = try connection.query(
                "SELECT poster_id, key FROM search_key WHERE poster_id > \(after) ORDER BY poster_id LIMIT 20000", binary: true)
            guard rows.count > 0 else { break }
            let ids = try (0..<rows.count).map { try rows.int64($0, 0) }
            try session.writeSegment(
                ids: ids, pieces: (0..<rows.count).map { SearchGrams.pieces(forKey: rows.text($0, 1)) }, merging: false)
            after = ids[ids.count - 1]  // rows.count > 0
        }
        try session.merge(budget: Int.max)
    }

    /// The advisory lock a merge holds (with ``PostgresSchema/lockSpace``).
    static let searchMergeLock: Int32 = 2

    /// A merge's step reads about this many bytes of lists at least (``PostingMerge/budget(written:step:)``).
    static let searchMergeStep = 256 * 1024

    /// Writes the posters' pieces as one new segment (inside their transaction), then moves
    /// merges on by eight times what it wrote, unless another transaction is merging.
    func writeSegment(ids: [Int64], pieces: [[UInt64]], merging: Bool = true) throws {
        let segment = SegmentBuilder(ids, pieces: pieces)
        guard !segment.isEmpty else { return }
        let written = try insertBlocks(segment: try newSegment(posters: segment.posters)) { try segment.blocks($0) }
        guard merging else { return }
        try merge(budget: PostingMerge.budget(written: written, step: Self.searchMergeStep))
    }

    /// A new segment's id.
    private func newSegment(posters: Int) throws -> Int64 {
        try connection.query(
            "INSERT INTO search_segment (level, posters) VALUES (\(PostingMerge.level(posters: posters)), \(posters)) RETURNING id"
        ).int64(0, 0)
    }

    /// Stores the blocks `produce` hands to its writer as rows of `segment`, in one statement:
    /// every block in one `bytea`, cut by offsets on the server. Returns the bytes written.
    @discardableResult
    private func insertBlocks(segment: Int64, _ produce: (@escaping (UInt64, [UInt8]) throws -> Void) throws -> Void) throws -> Int {
        var pieces: [Int64] = []
        var starts: [Int64] = []
        var lengths: [Int64] = []
        var bytes: [UInt8] = []
        try produce { piece, block in
            pieces.append(Int64(bitPattern: piece))
            starts.append(Int64(bytes.count + 1))
            lengths.append(Int64(block.count))
            bytes.append(contentsOf: block)
        }
        guard !pieces.isEmpty else { return 0 }
        try connection.query(
            """
            INSERT INTO search_posting (segment, piece, postings)
            SELECT \(segment), u.p, substring(\(bytes)::bytea FROM u.s::integer FOR u.l::integer)
            FROM unnest(\(pieces)::bigint[], \(starts)::bigint[], \(lengths)::bigint[]) AS u(p, s, l)
            """)
        return bytes.count
    }

    /// Starts a merge for every level that reached ``PostingMerge/segmentsPerMerge`` segments,
    /// and moves the merges under way on, smallest first, until about `budget` bytes of lists
    /// have been read (one that finishes may complete a level of its own, which starts
    /// another). Nothing when another transaction holds the merge lock: it is merging.
    func merge(budget: Int) throws {
        guard
            try connection.query("SELECT pg_try_advisory_xact_lock(\(PostgresSchema.lockSpace), \(Self.searchMergeLock))").bool(0, 0)
        else { return }
        var budget = budget
        try startMerges()
        while budget > 0 {
            let targets = try connection.query(
                "SELECT s.id FROM search_segment s WHERE s.id IN (SELECT target FROM search_merge) ORDER BY s.posters, s.id")
            var finished = false
            for row in 0..<targets.count where budget > 0 {
                if try stepMerge(into: targets.int64(row, 0), budget: &budget) { finished = true }
            }
            guard finished else { return }
            try startMerges()
        }
    }

    /// Starts a merge of the oldest ``PostingMerge/segmentsPerMerge`` segments of each level
    /// that has that many outside any merge: their target segment is made (empty), and
    /// `search_merge` names it for each of them.
    private func startMerges() throws {
        let free = "NOT EXISTS (SELECT 1 FROM search_merge m WHERE m.source = s.id OR m.target = s.id)"
        while true {
            let level = try connection.query(
                """
                SELECT level FROM search_segment s WHERE \(unescaped: free) GROUP BY level
                HAVING count(*) >= \(PostingMerge.segmentsPerMerge) ORDER BY level LIMIT 1
                """)
            guard level.count > 0 else { return }
            let segments = try connection.query(
                """
                SELECT id, posters FROM search_segment s WHERE level = \(try level.int(0, 0)) AND \(unescaped: free)
                ORDER BY id LIMIT \(PostingMerge.segmentsPerMerge)
                """)
            let ids = try (0..<segments.count).map { try segments.int64($0, 0) }
            let posters = try (0..<segments.count).reduce(0) { try $0 + segments.int($1, 1) }
            let target = try newSegment(posters: posters)
            try connection.query("INSERT INTO search_merge (source, target) SELECT unnest(\(ids)::bigint[]), \(target)")
        }
    }

    /// Moves a merge into `target` on (``PostingMerge/step(_:stale:budget:into:)``) and takes
    /// what it read out of the sources. Returns true when the sources are used up: they are
    /// deleted, the merge is forgotten and so are the stale marks no remaining segment needs.
    private func stepMerge(into target: Int64, budget: inout Int) throws -> Bool {
        let rows = try connection.query("SELECT source FROM search_merge WHERE target = \(target) ORDER BY source")
        let sources = try (0..<rows.count).map { try rows.int64($0, 0) }
        guard let oldest = sources.first else { return true }
        var stale: [Int64: Int64] = [:]
        let marks = try connection.query("SELECT poster_id, segment FROM search_stale WHERE segment >= \(oldest)", binary: true)
        for row in 0..<marks.count { stale[try marks.int64(row, 0)] = try marks.int64(row, 1) }
        var readers = try sources.reversed().map { try segmentEntries($0) }
        var rests: [SegmentEntries.Rest?] = []
        try insertBlocks(segment: target) { flush in
            var blocks = PostingBlock.Writer(flush: flush)
            try PostingMerge.step(&readers, stale: stale, budget: &budget, into: &blocks)
            rests = readers.map(\.rest)
        }
        guard rests.allSatisfy({ $0 == nil }) else {
            for (segment, rest) in zip(sources.reversed(), rests) { try keep(rest, of: segment) }
            return false
        }
        try connection.query("DELETE FROM search_posting WHERE segment = ANY(\(sources)::bigint[])")
        try connection.query("DELETE FROM search_segment WHERE id = ANY(\(sources)::bigint[])")
        try connection.query("DELETE FROM search_merge WHERE target = \(target)")
        try connection.execute(
            "DELETE FROM search_stale WHERE segment < (SELECT coalesce(min(id), 9223372036854775807) FROM search_segment)")
        return true
    }

    /// Takes what a merge's step read out of a source segment: its blocks before the one the
    /// step stopped in are deleted, and that block is written again holding only the lists
    /// not read (under the first of their pieces). A source the step used up loses every block.
    private func keep(_ rest: SegmentEntries.Rest?, of segment: Int64) throws {
        guard let rest else {
            try connection.query("DELETE FROM search_posting WHERE segment = \(segment)")
            return
        }
        try connection.query("DELETE FROM search_posting WHERE segment = \(segment) AND piece < \(rest.block)")
        guard let first = rest.lists.first, Int64(bitPattern: first.piece) != rest.block else { return }
        try connection.query("DELETE FROM search_posting WHERE segment = \(segment) AND piece = \(rest.block)")
        try insertBlocks(segment: segment) { flush in
            var blocks = PostingBlock.Writer(flush: flush)
            for list in rest.lists { try blocks.append(list.piece, list: list.bytes) }
            try blocks.finish()
        }
    }

    /// A reader of `segment`'s lists for a merge, 64 blocks a statement.
    private func segmentEntries(_ segment: Int64) throws -> SegmentEntries {
        let connection = connection
        var buffered: [(piece: Int64, block: [UInt8])] = []
        var next = 0
        var after = Int64.min
        var done = false
        return try SegmentEntries(
            segment: segment,
            rows: {
                if next == buffered.count {
                    guard !done else { return nil }
                    let rows = try connection.query(
                        "SELECT piece, postings FROM search_posting WHERE segment = \(segment) AND piece > \(after) ORDER BY piece LIMIT 64",
                        binary: true)
                    buffered = try (0..<rows.count).map { (try rows.int64($0, 0), rows.bytes($0, 1)) }
                    next = 0
                    done = rows.count < 64
                    guard let last = buffered.last else { return nil }
                    after = last.piece
                }
                next += 1
                return buffered[next - 1]
            },
            damaged: {
                PostgresError(
                    kind: .internal, sqlState: nil, message: "\($0); `tenbin check --repair` rebuilds the index",
                    target: connection.target.description)
            })
    }

    // MARK: Reading

    /// Each term's cursor over every segment, from one statement reading, in every segment,
    /// the blocks that can hold each term's pieces (the last starting at or before a range's
    /// first piece, and every one starting after it up to its last); nil when a term matches
    /// nothing.
    func termCursors(_ terms: [IndexTerm]) throws -> [TermCursor]? {
        var ranges: [(term: Int, range: ClosedRange<Int64>)] = []
        for (index, term) in terms.enumerated() {
            guard let pieces = term.pieceRanges else { return nil }
            ranges += pieces.map { (index, $0) }
        }
        let rows = try select(
            """
            SELECT r.n, q.piece, q.postings
            FROM unnest(\(ranges.map(\.range.lowerBound))::bigint[], \(ranges.map(\.range.upperBound))::bigint[]) WITH ORDINALITY AS r(lo, hi, n)
            CROSS JOIN search_segment s
            CROSS JOIN LATERAL (SELECT p.piece, p.postings FROM search_posting p WHERE p.segment = s.id AND p.piece <= r.hi
                AND p.piece >= coalesce((SELECT max(o.piece) FROM search_posting o WHERE o.segment = s.id AND o.piece <= r.lo), r.lo)) q
            """)
        var found = Array(repeating: [PostingCursor](), count: terms.count)
        for row in 0..<rows.count {
            let range = ranges[try rows.int(row, 0) - 1]
            PostingBlock.cursors(in: rows.bytes(row, 2), firstPiece: try rows.int64(row, 1), within: range.range, into: &found[range.term])
        }
        var cursors: [TermCursor] = []
        for lists in found {
            let cursor = TermCursor(lists)
            guard cursor.current != nil else { return nil }
            cursors.append(cursor)
        }
        return cursors
    }

    /// The ids holding every term, highest first, below `below`, in batches (the first of
    /// `first`, each next four times larger up to 4,096) until `visit` returns false.
    func indexHits(_ terms: [IndexTerm], below: Int64?, first: Int, visit: ([Int64]) throws -> Bool) throws {
        guard let cursors = try termCursors(terms) else { return }
        var hits = PostingIntersection(cursors, below: below)
        var size = first
        var batch: [Int64] = []
        while true {
            batch.removeAll(keepingCapacity: true)
            while batch.count < size, let id = hits.next() { batch.append(id) }
            guard !batch.isEmpty, try visit(batch), batch.count == size else { return }
            size = min(size * 4, 4096)
        }
    }

    /// What `tenbin check` finds wrong with the index's structure: every list readable, every
    /// row in a segment that exists, every merge naming segments that exist.
    static func postingIndexProblems(on connection: Connection) throws -> [String] {
        var problems: [String] = []
        let unknown = try connection.query(
            """
            SELECT id FROM (SELECT source AS id FROM search_merge UNION SELECT target FROM search_merge) m
            WHERE id NOT IN (SELECT id FROM search_segment) ORDER BY id
            """)
        if unknown.count > 0 {
            problems.append(PostingIndexCheck.unknownSegments(try (0..<unknown.count).map { try unknown.int64($0, 0) }))
        }
        var damaged = 0
        var example = ""
        var after: (Int64, Int64) = (Int64.min, Int64.min)
        while true {
            let rows = try connection.query(
                """
                SELECT p.segment, p.piece, p.postings, EXISTS (SELECT 1 FROM search_segment s WHERE s.id = p.segment)
                FROM search_posting p WHERE (p.segment, p.piece) > (\(after.0), \(after.1)) ORDER BY p.segment, p.piece LIMIT 1000
                """, binary: true)
            guard rows.count > 0 else { break }
            for row in 0..<rows.count {
                let (segment, piece) = (try rows.int64(row, 0), try rows.int64(row, 1))
                after = (segment, piece)
                guard let fault = PostingIndexCheck.fault(rows.bytes(row, 2), firstPiece: piece, inSegment: try rows.bool(row, 3)) else {
                    continue
                }
                damaged += 1
                if damaged == 1 { example = "segment \(segment), piece \(piece): \(fault)" }
            }
        }
        if damaged > 0 { problems.append(PostingIndexCheck.damaged(damaged, example: example)) }
        return problems
    }
}
