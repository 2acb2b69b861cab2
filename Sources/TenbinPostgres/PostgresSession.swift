import TenbinKit

/// One read (a REPEATABLE READ, READ ONLY transaction: one snapshot) or one write (a READ
/// COMMITTED transaction) on a pooled connection.
///
/// Writes from many processes run at once, so each write locks only what it needs: a vote is
/// one `UPDATE … SET good1 = good1 + n` (atomic in the row), a poster insert takes the insert
/// lock (ids commit in the order they are drawn, and import's identity check sees every
/// committed poster), and blob rows are guarded by per-digest advisory locks. Not `Sendable`:
/// it lives for one `read` or `write` call, on that call's thread.
final class PostgresSession: StoreWriting {
    let connection: Connection
    /// Posters this write changed, announced after it commits.
    var changed: Set<Int64> = []
    private var holdsInsertLock = false

    /// Whether this session is a ``PostgresStore/readSingle(_:)``: one statement, no transaction.
    private let single: Bool
    private var statements = 0

    init(_ connection: Connection, single: Bool = false) {
        self.connection = connection
        self.single = single
    }

    /// Runs a reading statement: in a single read, the only one, prepared once per connection
    /// (the connection is outside any transaction, where a prepared statement a pooler lost
    /// can run unprepared instead); otherwise as the transaction's next statement, prepared
    /// when `planOnce` (a read's transaction knows its session's prepared statements, see
    /// ``Connection/deferBegin(_:)``; a write's runs unprepared). Every statement is planned
    /// generically (see ``Connection``), so each is written to have one good plan whatever
    /// its values.
    /// Its rows come in binary format (``Rows``): every column a read selects is of a type
    /// ``Rows`` reads in either format.
    func select(_ query: PostgresQuery, planOnce: Bool = true) throws -> Rows {
        guard single else {
            return try planOnce && !isWriting ? connection.queryPrepared(query, binary: true) : connection.query(query, binary: true)
        }
        statements += 1
        guard statements == 1 else {
            throw PostgresError(
                kind: .internal, sqlState: nil, message: "a single-statement read ran a second statement",
                target: connection.target.description)
        }
        return try planOnce ? connection.queryPrepared(query, binary: true) : connection.query(query, binary: true)
    }

    // MARK: Reading

    func posters(ids: [Int64]) throws -> [Poster] {
        guard !ids.isEmpty else { return [] }
        var seen: Set<Int64> = []
        let distinct = ids.filter { seen.insert($0).inserted }
        let rows = try select("\(unescaped: PostgresStore.posterColumns) WHERE p.id = ANY(\(distinct)::bigint[])")
        var byID: [Int64: Poster] = [:]
        for row in 0..<rows.count {
            let poster = try PostgresStore.decodePoster(rows, row)
            byID[poster.id] = poster
        }
        return distinct.compactMap { byID[$0] }
    }

    func page(order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int) throws -> [Poster] {
        guard limit > 0 else { return [] }
        // The limit is written into the text and OFFSET left out at 0, so a prepared
        // statement's one generic plan knows how few rows it reads (a page's sizes are few):
        // with `LIMIT $n` the planner would plan for a tenth of the table.
        var query = PostgresQuery(unescaped: PostgresStore.posterColumns)
        if let after {
            switch order {
            case .new: query.append(" WHERE p.id < \(after.id)")
            case .popular: query.append(" WHERE (p.votes, p.id) < (\(after.votes), \(after.id))")
            case .trending: query.append(" WHERE (p.trend, p.id) < (\(after.score), \(after.id))")
            }
        }
        query.append(PostgresQuery(unescaped: PostgresStore.pageTail(order: order, limit: limit)))
        if offset > 0 { query.append(" OFFSET \(offset)") }
        let rows = try select(query)
        return try (0..<rows.count).map { try PostgresStore.decodePoster(rows, $0) }
    }

    func count() throws -> Int {
        try select("SELECT count(*) FROM poster").int(0, 0)
    }

    func storedImage(source: Digest, encodingKey: String) throws -> StoredImage? {
        let rows = try select(
            """
            SELECT b.digest, b.format, b.width, b.height, b.bytes FROM upload u JOIN blob b ON b.digest = u.digest
            WHERE u.source = \(source.hex) AND u.options = \(encodingKey)
            """)
        return rows.count == 0 ? nil : try PostgresStore.decodeImage(rows, 0, from: 0, target: connection.target)
    }

    func storedImage(digest: Digest) throws -> StoredImage? {
        let rows = try select("SELECT digest, format, width, height, bytes FROM blob WHERE digest = \(digest.hex)")
        return rows.count == 0 ? nil : try PostgresStore.decodeImage(rows, 0, from: 0, target: connection.target)
    }

    func blobRowsPresent(_ digests: [Digest]) throws -> Set<Digest> {
        guard !digests.isEmpty else { return [] }
        let rows = try select("SELECT digest FROM blob WHERE digest = ANY(\(digests.map(\.hex))::text[])")
        return Set((0..<rows.count).compactMap { Digest(hex: rows.text($0, 0)) })
    }

    func blobRows() throws -> [StoredImage] {
        let rows = try select("SELECT digest, format, width, height, bytes FROM blob ORDER BY digest", planOnce: false)
        return try (0..<rows.count).map { try PostgresStore.decodeImage(rows, $0, from: 0, target: connection.target) }
    }

    func posterIDs(using digest: Digest) throws -> [Int64] {
        let hex = PostgresQuery.Shared(digest.hex)
        let rows = try select("SELECT id FROM poster WHERE image1 = \(hex) UNION SELECT id FROM poster WHERE image2 = \(hex) ORDER BY 1")
        return try (0..<rows.count).map { try rows.int64($0, 0) }
    }

    func posterIDs(image1: Digest, image2: Digest, contents: String) throws -> [Int64] {
        // In a write, import's identity check then insert must not race another import.
        try takeInsertLockIfWriting()
        let key = PostgresSchema.identityKey("image1", "image2", "contents")
        let (first, second) = (PostgresQuery.Shared(image1.hex), PostgresQuery.Shared(image2.hex))
        let text = PostgresQuery.Shared(Array(contents.utf8))
        let rows = try select(
            """
            SELECT id FROM poster WHERE \(key) = \(PostgresSchema.identityKey("\(first)::text", "\(second)::text", "\(text)::bytea"))
            AND image1 || image2 = \(first)::text || \(second)::text AND contents = \(text)::bytea ORDER BY id
            """)
        return try (0..<rows.count).map { try rows.int64($0, 0) }
    }

    // MARK: Search

    /// Keys read newest first, unfiltered, before the index is asked: a common word (one poster
    /// in a few) fills a page from them, where the index would hand over its whole posting list.
    static let walkBudget = 128

    /// Candidates newest first, in steps whose cost is bounded however common the words are,
    /// all in this session's snapshot and each a prepared statement with one possible plan
    /// (planned once per connection: planning alone took longer than a search's budget).
    ///
    /// 1. The newest ``walkBudget`` keys below the cursor, unfiltered (the core rechecks every
    ///    candidate): enough for a common word. How many of them hold every piece estimates
    ///    how common the terms are.
    /// 2. While the estimate promises many candidates below the cursor: the index, restricted
    ///    to a window of ids just below the cursor by the tokens it holds
    ///    (``PostgresStore/searchWindowSchemaSQL``), the window sized to hold a page's worth
    ///    (256–512 or 2,048–4,096 ids by a window token; 16,384–32,768 by the pieces qualified
    ///    by their window), so a step costs about its window's share of the posting lists,
    ///    not the lists.
    /// 3. Then the index below the cursor, unrestricted, in growing batches: the words are rare
    ///    there, and the intersection small.
    func searchCandidates(_ terms: [IndexTerm], below: Int64?, visit: (SearchEntry) throws -> Bool) throws {
        try candidates(terms, below: below, wanted: 24, visit: visit)
    }

    /// ``searchCandidates(_:below:visit:)``, each window sized to hold about `wanted`
    /// candidates (at most 2,048–4,096 ids by a window token).
    private func candidates(_ terms: [IndexTerm], below: Int64?, wanted: Int, visit: (SearchEntry) throws -> Bool) throws {
        var cursor = below ?? Int64.max
        let tokens = PostgresStore.searchTokensExpression
        guard !terms.isEmpty else {
            var batch = Self.walkBudget
            while true {
                guard let walked = try walk(below: cursor, limit: batch, pieces: [], visit: visit) else { return }
                cursor = walked.last
                batch = min(batch * 4, 8192)
            }
        }
        let exact = terms.filter { !$0.isPrefix }.map(\.token)
        guard
            let walked = try walk(
                below: cursor, limit: Self.walkBudget, pieces: exact.compactMap(SearchGrams.piece(ofToken:)), visit: visit)
        else { return }
        cursor = walked.last
        // Candidates seen per id read, half a candidate assumed where none was seen.
        var found = Double(walked.candidates)
        var covered = Double(max(1, walked.first - walked.last + 1))
        let prefixes = Self.prefixFilter(terms)
        // A window's keys sent at once: a few times what is wanted (the core's recheck drops
        // some), a power of two so that few statements are prepared.
        var sent = 64
        while sent < 2 * min(wanted, 4096) { sent *= 2 }
        while cursor > 1 {
            let rate = max(found, 0.5) / covered
            guard rate * Double(cursor) > Double(Self.rareBelow) else { break }
            let level = PostgresStore.searchWindowLevels.first { Double(1 << $0) * rate >= Double(min(wanted, 256)) }
            // The window holding the id just below the cursor, and the one below it: by a
            // window token for a common word; by its pieces qualified by their window otherwise.
            let size = level ?? PostgresStore.searchPieceWindowLevel
            let upper = (cursor - 1) >> size
            let windows = [upper << size, (upper - 1) << size].map { start -> [String] in
                guard let level else { return exact.map { PostgresStore.pieceWindowToken($0, id: start) } }
                return exact + [PostgresStore.windowToken(level: level, id: start)]
            }
            // At most `sent` keys, the newest, each with its votes: the two windows may hold
            // many more candidates than the page needs, and a poster's votes cost an index
            // lookup each (half the statement's time when all were sent).
            let rows = try select(
                """
                SELECT w.poster_id, w.key, (SELECT p.good1 + p.good2 FROM poster p WHERE p.id = w.poster_id) FROM (
                SELECT k.poster_id, k.key FROM search_key k
                WHERE (\(unescaped: tokens) @> \(windows[0])::text[] OR \(unescaped: tokens) @> \(windows[1])::text[])
                AND k.poster_id + 0 < \(cursor)\(prefixes) ORDER BY k.poster_id + 0 DESC LIMIT \(unescaped: sent)) AS w ORDER BY w.poster_id DESC
                """)
            guard try visitAll(rows, visit) else { return }
            // A full batch: the windows hold more below its last key, read next from there.
            let next = try rows.count == sent ? rows.int64(rows.count - 1, 0) : max(0, (upper - 1) << size)
            found += Double(rows.count)
            covered += Double(cursor - next)
            cursor = next
        }
        var batch = Self.rareBelow
        while cursor > 1 {
            // A bitmap scan reads every candidate below the cursor whatever the limit; the
            // limit, written into the text (one plan per batch size), bounds what is sent.
            // Votes are looked up for the keys sent only (inside, every candidate's would be).
            let rows = try select(
                """
                SELECT w.poster_id, w.key, (SELECT p.good1 + p.good2 FROM poster p WHERE p.id = w.poster_id) FROM (
                SELECT k.poster_id, k.key FROM search_key k
                WHERE \(unescaped: tokens) @> \(exact)::text[] AND k.poster_id + 0 < \(cursor)\(prefixes)
                ORDER BY k.poster_id + 0 DESC LIMIT \(unescaped: batch)) AS w ORDER BY w.poster_id DESC
                """)
            guard try visitAll(rows, visit), rows.count == batch else { return }
            cursor = try rows.int64(rows.count - 1, 0)
            batch = 4096
        }
    }

    /// Below the cursor, fewer candidates than this (estimated) are read in one unrestricted
    /// index scan rather than window by window.
    static let rareBelow = 256

    /// Up to `limit` keys below `cursor`, newest first, unfiltered, each visited: the first and
    /// last ids read and how many keys held every one of `pieces` (UTF-8), or nil when the walk
    /// is over (fewer rows than asked, or `visit` stopped). Both tables are bounded by the
    /// cursor, so the plan merges their primary keys from the cursor down.
    private func walk(
        below cursor: Int64, limit: Int, pieces: [[UInt8]], visit: (SearchEntry) throws -> Bool
    ) throws -> (first: Int64, last: Int64, candidates: Int)? {
        let below = PostgresQuery.Shared(cursor)
        let rows = try select(
            """
            SELECT k.poster_id, k.key, p.good1 + p.good2 FROM search_key k JOIN poster p ON p.id = k.poster_id
            WHERE k.poster_id < \(below) AND p.id < \(below) ORDER BY k.poster_id DESC LIMIT \(unescaped: limit)
            """)
        var candidates = 0
        for row in 0..<rows.count {
            let entry = try SearchEntry(id: rows.int64(row, 0), key: rows.text(row, 1), votes: rows.int(row, 2))
            guard try visit(entry) else { return nil }
            if !pieces.isEmpty && SearchGrams.key(entry.key, holdsEvery: pieces) { candidates += 1 }
        }
        guard rows.count == limit else { return nil }
        return try (rows.int64(0, 0), rows.int64(rows.count - 1, 0), candidates)
    }

    /// Visits each row (id, key, votes) in order; false once `visit` stops.
    private func visitAll(_ rows: Rows, _ visit: (SearchEntry) throws -> Bool) throws -> Bool {
        for row in 0..<rows.count {
            guard try visit(SearchEntry(id: rows.int64(row, 0), key: rows.text(row, 1), votes: rows.int(row, 2))) else { return false }
        }
        return true
    }

    /// The candidates newest first as ``searchCandidates(_:below:visit:)`` finds them, keys
    /// read unfiltered tested here (for exact terms: a prefix term is left to the core's
    /// recheck there): a common word's first `limit` cost a few windows, where the index alone
    /// would hand over its whole posting list.
    func searchCandidateIDs(_ terms: [IndexTerm], limit: Int) throws -> [Int64] {
        guard limit > 0 else { return [] }
        let pieces = terms.filter { !$0.isPrefix }.compactMap { SearchGrams.piece(ofToken: $0.token) }
        var ids: [Int64] = []
        try candidates(terms, below: nil, wanted: limit) { entry in
            if SearchGrams.key(entry.key, holdsEvery: pieces) { ids.append(entry.id) }
            return ids.count < limit
        }
        return ids
    }

    /// One statement: the posters of the page schema step 5's functions find
    /// (``PostgresStore/exactSearchFunctionSQL``, ``PostgresStore/exactPopularSearchFunctionSQL``),
    /// in `order` (the terms are exact, so the ids they find are the answer). nil for a page
    /// reaching deeper than ``exactSearchReach`` matches: the functions gather ids in an array.
    func exactSearchPosters(_ query: SearchQuery, order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int) throws
        -> [Poster]?
    {
        guard limit > 0 else { return [] }
        guard offset >= 0, offset < Self.exactSearchReach, limit <= Self.exactSearchReach - offset else { return nil }
        let words: PostgresQuery = "\(SearchGrams.terms(for: query).map(\.token))::text[], \(query.words)::text[]"
        let function: PostgresQuery
        switch order {
        case .trending:
            // No function of its own: the core's plan (ranked candidates, or a walk by score).
            return nil
        case .new:
            function = "\(unescaped: PostgresStore.exactSearchFunction)(\(words), \(after?.id ?? Int64.max), \(offset), \(limit))"
        case .popular:
            function = """
                \(unescaped: PostgresStore.exactPopularSearchFunction)(\(words), \(after.map { Int64($0.votes) } ?? Int64.max), \
                \(after?.id ?? Int64.max), \(offset), \(limit))
                """
        }
        let rows = try select(
            "\(unescaped: PostgresStore.posterColumns) WHERE p.id = ANY(\(function)) ORDER BY \(unescaped: PostgresStore.orderBy(order))")
        return try (0..<rows.count).map { try PostgresStore.decodePoster(rows, $0) }
    }

    /// The deepest match an exact search answers in one statement (see
    /// ``exactSearchPosters(_:order:after:offset:limit:)``).
    static let exactSearchReach = 4096

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

    /// The WHERE clause (` AND …`) requiring every prefix term, by a test of the candidate's
    /// pieces (exact terms go to the index).
    static func prefixFilter(_ terms: [IndexTerm]) -> PostgresQuery {
        var filter: PostgresQuery = ""
        for term in terms where term.isPrefix {
            let pattern = term.token.replacing("\\", with: "\\\\").replacing("%", with: "\\%").replacing("_", with: "\\_") + "%"
            filter.append(" AND EXISTS (SELECT 1 FROM unnest(k.grams) AS g WHERE g LIKE \(pattern))")
        }
        return filter
    }

    // MARK: Writing

    func lockBlobs(_ digests: [Digest]) throws {
        try PostgresStore.lockBlobs(Set(digests), on: connection)
    }

    func insertBlob(_ image: StoredImage, source: Digest?, encodingKey: String) throws {
        try connection.query(
            """
            INSERT INTO blob (digest, format, width, height, bytes, source) VALUES (\(image.digest.hex), \(image.format.rawValue), \
            \(image.width), \(image.height), \(image.bytes), \(source?.hex)) ON CONFLICT (digest) DO NOTHING
            """)
        if let source {
            try connection.query(
                """
                INSERT INTO upload (source, options, digest) VALUES (\(source.hex), \(encodingKey), \(image.digest.hex))
                ON CONFLICT (source, options) DO UPDATE SET digest = excluded.digest
                """)
        }
    }

    func insertPoster(_ poster: NewPoster, createdAt: Timestamp, search: SearchRecord) throws -> Int64 {
        try insertPosters([poster], createdAt: createdAt, search: [search])[0]
    }

    func addVotes(_ deltas: [VoteDelta], at time: Timestamp) throws -> [Poster] {
        let posters = try PostgresStore.addVotes(deltas, at: time, on: connection)
        for poster in posters { changed.insert(poster.id) }
        return posters
    }

    func updateText(id: Int64, contents: String, hashtags: [String], search: SearchRecord) throws -> Bool {
        // Before this poster's row is locked: the step locks the rows it re-keys in ascending order.
        try stepReadings()
        let key = PostgresQuery.Shared(search.key)
        let updated = try connection.query(
            """
            UPDATE poster SET contents = \(Array(contents.utf8))::bytea, hashtags = \(hashtags)::text[], \
            walk_key = \(PostgresStore.walkKeySQL("\(key)::text")) WHERE id = \(id)
            """)
        guard updated.changes == 1 else { return false }
        try connection.query(
            """
            INSERT INTO search_key (poster_id, key, grams) VALUES (\(id), \(search.key), \(search.tokens)::text[])
            ON CONFLICT (poster_id) DO UPDATE SET key = excluded.key, grams = excluded.grams
            """)
        changed.insert(id)
        return true
    }

    func deletePoster(id: Int64) throws -> Bool {
        // The search key and the timeline go with it (ON DELETE CASCADE).
        let deleted = try connection.query("DELETE FROM poster WHERE id = \(id)")
        guard deleted.changes == 1 else { return false }
        changed.insert(id)
        return true
    }

    /// Deletes the row only while no poster references it, holding the digest's lock: a post
    /// that committed a reference meanwhile keeps its row (the lock waits for that commit, and
    /// the statement after it sees the reference).
    func deleteBlobRow(_ digest: Digest) throws {
        try PostgresStore.lockBlobs([digest], on: connection)
        try connection.query(
            """
            DELETE FROM blob b WHERE b.digest = \(digest.hex)
            AND NOT EXISTS (SELECT 1 FROM poster WHERE image1 = b.digest) AND NOT EXISTS (SELECT 1 FROM poster WHERE image2 = b.digest)
            """)
    }

    func unreferencedBlobRows() throws -> [Digest] {
        let rows = try connection.query(
            """
            SELECT digest FROM blob b WHERE NOT EXISTS (SELECT 1 FROM poster WHERE image1 = b.digest)
            AND NOT EXISTS (SELECT 1 FROM poster WHERE image2 = b.digest) ORDER BY digest
            """)
        return (0..<rows.count).compactMap { Digest(hex: rows.text($0, 0)) }
    }

    /// Locks `search_key` so that reads go on but a post's, an edit's or a delete's change to
    /// it waits for this transaction: a poster written meanwhile is either read by the rebuild
    /// from its snapshot or keys itself after it commits. The rows stay: every poster's is
    /// rewritten by ``storeSearch(ids:search:)`` where it differs, and none can outlive its
    /// poster (the foreign key deletes it), so the end is the same as emptying the table,
    /// without putting a million unchanged rows through the GIN index again (2.3 s a 20,000).
    func clearSearch() throws {
        // Every key is written again with its readings (PostgresSession+Readings.swift). First: a
        // write taking a step holds the mark's row before it touches search_key.
        try connection.execute("DELETE FROM search_reading")
        try connection.execute("LOCK TABLE search_key IN SHARE ROW EXCLUSIVE MODE")
    }

    /// Writes the keys and pieces that differ from what is stored (or are missing), and
    /// corrects the key's copy beside the votes (`walk_key`) where it differs; rows already
    /// right are left as they are, so votes on those posters go on.
    func storeSearch(ids: [Int64], search: [SearchRecord]) throws {
        guard !ids.isEmpty else { return }
        try connection.execute("SET LOCAL gin_pending_list_limit = '64MB'")
        let keys = search.map(\.key)
        try connection.query(
            """
            INSERT INTO search_key AS s (poster_id, key, grams)
            SELECT i, k, string_to_array(d, ' ') FROM unnest(\(ids)::bigint[], \(keys)::text[], \(search.map(\.document))::text[]) AS t(i, k, d)
            ON CONFLICT (poster_id) DO UPDATE SET key = excluded.key, grams = excluded.grams
            WHERE (s.key, s.grams) IS DISTINCT FROM (excluded.key, excluded.grams)
            """)
        try connection.query(
            """
            UPDATE poster p SET walk_key = \(PostgresStore.walkKeySQL("u.k")) FROM unnest(\(ids)::bigint[], \(keys)::text[]) AS u(i, k)
            WHERE p.id = u.i AND p.walk_key IS DISTINCT FROM \(PostgresStore.walkKeySQL("u.k"))
            """)
    }

    /// Takes the insert lock once per write transaction (reads take none).
    func takeInsertLockIfWriting() throws {
        guard isWriting, !holdsInsertLock else { return }
        try connection.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.lockSpace), \(PostgresSchema.insertLock))")
        holdsInsertLock = true
    }

    /// Whether this session is a write.
    var isWriting = false
}
