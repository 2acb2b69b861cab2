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
    /// The store's search blocks, for a read's searches (``SearchBlockCache``); nil in writes.
    let searchBlocks: SearchBlockCache?
    /// The search index's segments in this read's snapshot, once a search has read them.
    var searchSegments: [(segment: SearchBlockCache.Segment, merging: Bool)]?
    /// Set in a search outside any transaction (``PostgresStore/visibleSearchPosters(_:order:after:offset:limit:)``):
    /// the segment list kept from an earlier read, which every statement of the search checks
    /// against the segment table in its own snapshot (``segmentsMatchSQL(_:)``), throwing
    /// ``KeptSegmentsMoved`` when it does not match.
    var verifiedSegments: SearchBlockCache.KeptSegments?

    init(_ connection: Connection, single: Bool = false, searchBlocks: SearchBlockCache? = nil) {
        self.connection = connection
        self.single = single
        self.searchBlocks = searchBlocks
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

    /// ``select(_:planOnce:)`` of each of `queries` in one round trip, in a read's transaction
    /// (``Connection/queryPrepared(pipelined:binary:)``); one by one in a write or a single read.
    func select(pipelined queries: [PostgresQuery]) throws -> [Rows] {
        guard !single && !isWriting else { return try queries.map { try select($0) } }
        return try connection.queryPrepared(pipelined: queries, binary: true)
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
        try page(order: order, after: after, offset: offset, limit: limit, visibleOnly: false)
    }

    /// A page, with `visibleOnly` the hidden posters left out (``PostgresStore/visiblePage(order:after:offset:limit:)``).
    func page(order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int, visibleOnly: Bool) throws -> [Poster] {
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
        if visibleOnly {
            query.append(after == nil ? " WHERE " : " AND ")
            query.append("NOT p.hidden")
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
            INSERT INTO search_key (poster_id, key) VALUES (\(id), \(search.key))
            ON CONFLICT (poster_id) DO UPDATE SET key = excluded.key
            """)
        // The poster's row is locked: its entries so far are stale, the new ones in a newer segment.
        try markSearchStale([id])
        try indexSearch(ids: [id], search: [search])
        changed.insert(id)
        return true
    }

    func deletePoster(id: Int64) throws -> Bool {
        // The search key and the timeline go with it (ON DELETE CASCADE); its index entries are
        // marked stale.
        let deleted = try connection.query("DELETE FROM poster WHERE id = \(id)")
        guard deleted.changes == 1 else { return false }
        try markSearchStale([id])
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
    /// it waits for this transaction (each writes `search_key` before the index): a poster
    /// written meanwhile is either read by the rebuild from its snapshot or keys itself after
    /// it commits. The index is emptied, to be written again by ``storeSearch(ids:search:)``;
    /// the keys stay, each rewritten where it differs, and none can outlive its poster (the
    /// foreign key deletes it), so the end is the same as emptying them too.
    func clearSearch() throws {
        // Every key is written again with its readings (PostgresSession+Readings.swift). First: a
        // write taking a step holds the mark's row before it touches search_key.
        try connection.execute("DELETE FROM search_reading")
        try connection.execute("LOCK TABLE search_key IN SHARE ROW EXCLUSIVE MODE")
        try connection.execute(
            "DELETE FROM search_posting; DELETE FROM search_segment; DELETE FROM search_merge; DELETE FROM search_stale")
        rebuildingSearch = true
    }

    /// Writes the keys that differ from what is stored (or are missing), and corrects the key's
    /// copy beside the votes (`walk_key`) where it differs; rows already right are left as they
    /// are, so votes on those posters go on. The posters whose keys changed are indexed again
    /// (their entries so far marked stale); in a rebuild (``clearSearch()``), every one.
    func storeSearch(ids: [Int64], search: [SearchRecord]) throws {
        guard !ids.isEmpty else { return }
        let keys = search.map(\.key)
        let written = try connection.query(
            """
            INSERT INTO search_key AS s (poster_id, key) SELECT i, k FROM unnest(\(ids)::bigint[], \(keys)::text[]) AS t(i, k)
            ON CONFLICT (poster_id) DO UPDATE SET key = excluded.key WHERE s.key IS DISTINCT FROM excluded.key
            RETURNING s.poster_id
            """)
        try connection.query(
            """
            UPDATE poster p SET walk_key = \(PostgresStore.walkKeySQL("u.k")) FROM unnest(\(ids)::bigint[], \(keys)::text[]) AS u(i, k)
            WHERE p.id = u.i AND p.walk_key IS DISTINCT FROM \(PostgresStore.walkKeySQL("u.k"))
            """)
        guard !rebuildingSearch else {
            try indexSearch(ids: ids, search: search)
            return
        }
        var rekeyed: Set<Int64> = []
        for row in 0..<written.count { rekeyed.insert(try written.int64(row, 0)) }
        let indexed = zip(ids, search).filter { rekeyed.contains($0.0) }
        try markSearchStale(indexed.map(\.0))
        try indexSearch(ids: indexed.map(\.0), search: indexed.map(\.1))
    }

    /// Takes the insert lock once per write transaction (reads take none).
    func takeInsertLockIfWriting() throws {
        guard isWriting, !holdsInsertLock else { return }
        try connection.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.lockSpace), \(PostgresSchema.insertLock))")
        holdsInsertLock = true
    }

    /// Whether this session is a write.
    var isWriting = false

    /// Whether this write is rebuilding search (``clearSearch()``): the index was emptied, and
    /// every record stored is indexed.
    var rebuildingSearch = false
}
