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
    private func select(_ sql: String, _ parameters: [SQLParameter] = [], planOnce: Bool = true) throws -> Rows {
        guard single else {
            return try planOnce && !isWriting
                ? connection.queryPrepared(sql, parameters, binary: true) : connection.query(sql, parameters, binary: true)
        }
        statements += 1
        guard statements == 1 else {
            throw PostgresError(
                kind: .internal, sqlState: nil, message: "a single-statement read ran a second statement",
                target: connection.target.description)
        }
        return try planOnce ? connection.queryPrepared(sql, parameters, binary: true) : connection.query(sql, parameters, binary: true)
    }

    // MARK: Reading

    func posters(ids: [Int64]) throws -> [Poster] {
        guard !ids.isEmpty else { return [] }
        var seen: Set<Int64> = []
        let distinct = ids.filter { seen.insert($0).inserted }
        let rows = try select(PostgresStore.posterColumns + " WHERE p.id = ANY($1::bigint[])", [.intArray(distinct)])
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
        var parameters: [SQLParameter] = []
        var condition = ""
        if let after {
            switch order {
            case .new:
                condition = " WHERE p.id < $1"
                parameters.append(.int(after.id))
            case .popular:
                condition = " WHERE (p.votes, p.id) < ($1, $2)"
                parameters += [.integer(after.votes), .int(after.id)]
            }
        }
        var tail = PostgresStore.pageTail(order: order, limit: limit)
        if offset > 0 {
            parameters.append(.integer(offset))
            tail += " OFFSET $\(parameters.count)"
        }
        let rows = try select(PostgresStore.posterColumns + condition + tail, parameters)
        return try (0..<rows.count).map { try PostgresStore.decodePoster(rows, $0) }
    }

    func count() throws -> Int {
        try select("SELECT count(*) FROM poster").int(0, 0)
    }

    func storedImage(source: Digest, encodingKey: String) throws -> StoredImage? {
        let rows = try select(
            """
            SELECT b.digest, b.format, b.width, b.height, b.bytes FROM upload u JOIN blob b ON b.digest = u.digest
            WHERE u.source = $1 AND u.options = $2
            """, [.text(source.hex), .text(encodingKey)])
        return rows.count == 0 ? nil : try PostgresStore.decodeImage(rows, 0, from: 0, target: connection.target)
    }

    func storedImage(digest: Digest) throws -> StoredImage? {
        let rows = try select("SELECT digest, format, width, height, bytes FROM blob WHERE digest = $1", [.text(digest.hex)])
        return rows.count == 0 ? nil : try PostgresStore.decodeImage(rows, 0, from: 0, target: connection.target)
    }

    func blobRowsPresent(_ digests: [Digest]) throws -> Set<Digest> {
        guard !digests.isEmpty else { return [] }
        let rows = try select("SELECT digest FROM blob WHERE digest = ANY($1::text[])", [.textArray(digests.map(\.hex))])
        return Set((0..<rows.count).compactMap { Digest(hex: rows.text($0, 0)) })
    }

    func blobRows() throws -> [StoredImage] {
        let rows = try select("SELECT digest, format, width, height, bytes FROM blob ORDER BY digest", planOnce: false)
        return try (0..<rows.count).map { try PostgresStore.decodeImage(rows, $0, from: 0, target: connection.target) }
    }

    func posterIDs(using digest: Digest) throws -> [Int64] {
        let rows = try select(
            "SELECT id FROM poster WHERE image1 = $1 UNION SELECT id FROM poster WHERE image2 = $1 ORDER BY 1", [.text(digest.hex)])
        return try (0..<rows.count).map { try rows.int64($0, 0) }
    }

    func posterIDs(image1: Digest, image2: Digest, contents: String) throws -> [Int64] {
        // In a write, import's identity check then insert must not race another import.
        try takeInsertLockIfWriting()
        let key = PostgresSchema.identityKey("image1", "image2", "contents")
        let rows = try select(
            """
            SELECT id FROM poster WHERE \(key) = \(PostgresSchema.identityKey("$1::text", "$2::text", "$3::bytea"))
            AND image1 || image2 = $1::text || $2::text AND contents = $3::bytea ORDER BY id
            """, [.text(image1.hex), .text(image2.hex), .utf8(contents)])
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
        let prefixes = Self.prefixFilter(terms, firstParameter: 4)
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
                WHERE (\(PostgresStore.searchTokensExpression) @> $1::text[] OR \(PostgresStore.searchTokensExpression) @> $2::text[])
                AND k.poster_id + 0 < $3\(prefixes.sql) ORDER BY k.poster_id + 0 DESC LIMIT \(sent)) AS w ORDER BY w.poster_id DESC
                """, [.textArray(windows[0]), .textArray(windows[1]), .int(cursor)] + prefixes.parameters)
            guard try visitAll(rows, visit) else { return }
            // A full batch: the windows hold more below its last key, read next from there.
            let next = try rows.count == sent ? rows.int64(rows.count - 1, 0) : max(0, (upper - 1) << size)
            found += Double(rows.count)
            covered += Double(cursor - next)
            cursor = next
        }
        let rest = Self.prefixFilter(terms, firstParameter: 3)
        var batch = Self.rareBelow
        while cursor > 1 {
            // A bitmap scan reads every candidate below the cursor whatever the limit; the
            // limit, written into the text (one plan per batch size), bounds what is sent.
            // Votes are looked up for the keys sent only (inside, every candidate's would be).
            let rows = try select(
                """
                SELECT w.poster_id, w.key, (SELECT p.good1 + p.good2 FROM poster p WHERE p.id = w.poster_id) FROM (
                SELECT k.poster_id, k.key FROM search_key k
                WHERE \(PostgresStore.searchTokensExpression) @> $1::text[] AND k.poster_id + 0 < $2\(rest.sql)
                ORDER BY k.poster_id + 0 DESC LIMIT \(batch)) AS w ORDER BY w.poster_id DESC
                """, [.textArray(exact), .int(cursor)] + rest.parameters)
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
        let rows = try select(
            """
            SELECT k.poster_id, k.key, p.good1 + p.good2 FROM search_key k JOIN poster p ON p.id = k.poster_id
            WHERE k.poster_id < $1 AND p.id < $1 ORDER BY k.poster_id DESC LIMIT \(limit)
            """, [.int(cursor)])
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
        var parameters: [SQLParameter] = [.textArray(SearchGrams.terms(for: query).map(\.token)), .textArray(query.words)]
        let function: String
        switch order {
        case .new:
            function = "\(PostgresStore.exactSearchFunction)($1::text[], $2::text[], $3, $4, $5)"
            parameters.append(.int(after?.id ?? Int64.max))
        case .popular:
            function = "\(PostgresStore.exactPopularSearchFunction)($1::text[], $2::text[], $3, $4, $5, $6)"
            parameters += [.int(after.map { Int64($0.votes) } ?? Int64.max), .int(after?.id ?? Int64.max)]
        }
        parameters += [.int(Int64(offset)), .int(Int64(limit))]
        let rows = try select(
            PostgresStore.posterColumns + " WHERE p.id = ANY(\(function)) ORDER BY \(PostgresStore.orderBy(order))", parameters)
        return try (0..<rows.count).map { try PostgresStore.decodePoster(rows, $0) }
    }

    /// The deepest match an exact search answers in one statement (see
    /// ``exactSearchPosters(_:order:after:offset:limit:)``).
    static let exactSearchReach = 4096

    func searchEntries(ids: [Int64]) throws -> [SearchEntry] {
        guard !ids.isEmpty else { return [] }
        let rows = try select(
            """
            SELECT k.poster_id, k.key, p.good1 + p.good2 FROM search_key k JOIN poster p ON p.id = k.poster_id
            WHERE k.poster_id = ANY($1::bigint[])
            """, [.intArray(ids)])
        var byID: [Int64: SearchEntry] = [:]
        for row in 0..<rows.count {
            let entry = try SearchEntry(id: rows.int64(row, 0), key: rows.text(row, 1), votes: rows.int(row, 2))
            byID[entry.id] = entry
        }
        return ids.compactMap { byID[$0] }
    }

    func searchEntriesByVotes(after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws {
        var cursor = after
        var batch = 256
        while true {
            // The limit is written into the text (one plan per batch size, sized for it); the
            // first batch, without a cursor, reads the popular index from its start. The keys
            // come from that index (schema step 6: an index-only scan), a long one looked up.
            var parameters: [SQLParameter] = []
            var condition = ""
            if let cursor {
                condition = " WHERE (p.votes, p.id) < ($1, $2)"
                parameters += [.integer(cursor.votes), .int(cursor.id)]
            }
            let rows = try select(
                """
                SELECT p.id, coalesce(p.walk_key, (SELECT k.key FROM search_key k WHERE k.poster_id = p.id)), p.votes
                FROM poster p\(condition) ORDER BY p.votes DESC, p.id DESC LIMIT \(batch)
                """, parameters)
            guard try visitAll(rows, visit), rows.count == batch else { return }
            cursor = try FeedPosition(id: rows.int64(rows.count - 1, 0), votes: rows.int(rows.count - 1, 2))
            batch = min(batch * 4, 4096)
        }
    }

    /// The WHERE clause (` AND …`) requiring every prefix term, by a test of the candidate's
    /// pieces (exact terms go to the index).
    static func prefixFilter(_ terms: [IndexTerm], firstParameter: Int) -> (sql: String, parameters: [SQLParameter]) {
        var sql = ""
        var parameters: [SQLParameter] = []
        for term in terms where term.isPrefix {
            parameters.append(.text(term.token.replacing("\\", with: "\\\\").replacing("%", with: "\\%").replacing("_", with: "\\_") + "%"))
            sql += " AND EXISTS (SELECT 1 FROM unnest(k.grams) AS g WHERE g LIKE $\(firstParameter + parameters.count - 1))"
        }
        return (sql, parameters)
    }

    // MARK: Writing

    func lockBlobs(_ digests: [Digest]) throws {
        try PostgresStore.lockBlobs(Set(digests), on: connection)
    }

    func insertBlob(_ image: StoredImage, source: Digest?, encodingKey: String) throws {
        try connection.query(
            "INSERT INTO blob (digest, format, width, height, bytes, source) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (digest) DO NOTHING",
            [
                .text(image.digest.hex), .text(image.format.rawValue), .integer(image.width), .integer(image.height),
                .integer(image.bytes), source.map { .text($0.hex) } ?? .null,
            ])
        if let source {
            try connection.query(
                """
                INSERT INTO upload (source, options, digest) VALUES ($1, $2, $3)
                ON CONFLICT (source, options) DO UPDATE SET digest = excluded.digest
                """, [.text(source.hex), .text(encodingKey), .text(image.digest.hex)])
        }
    }

    func insertPoster(_ poster: NewPoster, createdAt: Timestamp, search: SearchRecord) throws -> Int64 {
        try insertPosters([poster], createdAt: createdAt, search: [search])[0]
    }

    func addVotes(_ deltas: [VoteDelta]) throws -> [Poster] {
        let posters = try PostgresStore.addVotes(deltas, on: connection)
        for poster in posters { changed.insert(poster.id) }
        return posters
    }

    func updateText(id: Int64, contents: String, hashtags: [String], search: SearchRecord) throws -> Bool {
        let updated = try connection.query(
            "UPDATE poster SET contents = $2::bytea, hashtags = $3::text[], walk_key = \(PostgresStore.walkKeySQL("$4::text")) WHERE id = $1",
            [.int(id), .utf8(contents), .textArray(hashtags), .text(search.key)])
        guard updated.changes == 1 else { return false }
        try connection.query(
            """
            INSERT INTO search_key (poster_id, key, grams) VALUES ($1, $2, $3::text[])
            ON CONFLICT (poster_id) DO UPDATE SET key = excluded.key, grams = excluded.grams
            """, [.int(id), .text(search.key), .textArray(search.tokens)])
        changed.insert(id)
        return true
    }

    func deletePoster(id: Int64) throws -> Bool {
        // The search key goes with it (ON DELETE CASCADE).
        let deleted = try connection.query("DELETE FROM poster WHERE id = $1", [.int(id)])
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
            DELETE FROM blob b WHERE b.digest = $1
            AND NOT EXISTS (SELECT 1 FROM poster WHERE image1 = b.digest) AND NOT EXISTS (SELECT 1 FROM poster WHERE image2 = b.digest)
            """, [.text(digest.hex)])
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
        try connection.execute("LOCK TABLE search_key IN SHARE ROW EXCLUSIVE MODE")
    }

    /// Writes the keys and pieces that differ from what is stored (or are missing), and
    /// corrects the key's copy beside the votes (`walk_key`) where it differs; rows already
    /// right are left as they are, so votes on those posters go on.
    func storeSearch(ids: [Int64], search: [SearchRecord]) throws {
        guard !ids.isEmpty else { return }
        try connection.execute("SET LOCAL gin_pending_list_limit = '64MB'")
        try connection.query(
            """
            INSERT INTO search_key AS s (poster_id, key, grams)
            SELECT i, k, string_to_array(d, ' ') FROM unnest($1::bigint[], $2::text[], $3::text[]) AS t(i, k, d)
            ON CONFLICT (poster_id) DO UPDATE SET key = excluded.key, grams = excluded.grams
            WHERE (s.key, s.grams) IS DISTINCT FROM (excluded.key, excluded.grams)
            """, [.intArray(ids), .textArray(search.map(\.key)), .textArray(search.map(\.document))])
        try connection.query(
            """
            UPDATE poster p SET walk_key = \(PostgresStore.walkKeySQL("u.k")) FROM unnest($1::bigint[], $2::text[]) AS u(i, k)
            WHERE p.id = u.i AND p.walk_key IS DISTINCT FROM \(PostgresStore.walkKeySQL("u.k"))
            """, [.intArray(ids), .textArray(search.map(\.key))])
    }

    /// Takes the insert lock once per write transaction (reads take none).
    func takeInsertLockIfWriting() throws {
        guard isWriting, !holdsInsertLock else { return }
        try connection.query(
            "SELECT pg_advisory_xact_lock($1, $2)", [.integer(PostgresSchema.lockSpace), .integer(PostgresSchema.insertLock)])
        holdsInsertLock = true
    }

    /// Whether this session is a write.
    var isWriting = false
}
