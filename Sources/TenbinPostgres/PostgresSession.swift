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
    /// ``Connection/begin(_:)``; a write's runs unprepared). Statements whose best plan
    /// depends on their parameters' values (search candidates: a rare word through the GIN
    /// index, a common one by id) are never prepared: a prepared statement's one generic plan
    /// scanned every key for a rare word.
    private func select(_ sql: String, _ parameters: [SQLParameter] = [], planOnce: Bool = true) throws -> Rows {
        guard single else {
            return try planOnce && !isWriting ? connection.queryPrepared(sql, parameters) : connection.query(sql, parameters)
        }
        statements += 1
        guard statements == 1 else {
            throw PostgresError(
                kind: .internal, sqlState: nil, message: "a single-statement read ran a second statement",
                target: connection.target.description)
        }
        return try planOnce ? connection.queryPrepared(sql, parameters) : connection.query(sql, parameters)
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
                condition = " WHERE ((p.good1 + p.good2), p.id) < ($1, $2)"
                parameters += [.integer(after.votes), .int(after.id)]
            }
        }
        var tail = " ORDER BY \(PostgresStore.orderBy(order)) LIMIT \(min(limit, Int(Int32.max)))"
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
        return (0..<rows.count).map { rows.int64($0, 0) }
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
        return (0..<rows.count).map { rows.int64($0, 0) }
    }

    // MARK: Search

    /// Candidates are read in growing batches (a page of a rare word needs one small batch; a
    /// scan of every key, a few large ones), all inside this session's snapshot. The cursor
    /// bounds both sides of the join: bounding only the key let the planner merge-join from the
    /// newest poster down for every batch (0.7 s a batch halfway through 1M posters).
    func searchCandidates(_ terms: [IndexTerm], below: Int64?, visit: (SearchEntry) throws -> Bool) throws {
        var cursor = below
        var batch = 64
        while true {
            let filter = Self.termFilter(terms, firstParameter: 3)
            var parameters: [SQLParameter] = [.integer(batch), cursor.map { .int($0) } ?? .null]
            parameters += filter.parameters
            let rows = try select(
                """
                SELECT k.poster_id, k.key, p.good1 + p.good2 FROM search_key k JOIN poster p ON p.id = k.poster_id
                WHERE ($2::bigint IS NULL OR (k.poster_id < $2 AND p.id < $2))\(filter.sql) ORDER BY k.poster_id DESC LIMIT $1
                """, parameters, planOnce: false)
            for row in 0..<rows.count {
                guard try visit(SearchEntry(id: rows.int64(row, 0), key: rows.text(row, 1), votes: rows.int(row, 2))) else { return }
            }
            guard rows.count == batch else { return }
            cursor = rows.int64(rows.count - 1, 0)
            batch = min(batch * 4, 4096)
        }
    }

    func searchCandidateIDs(_ terms: [IndexTerm], limit: Int) throws -> [Int64] {
        guard limit > 0 else { return [] }
        let filter = Self.termFilter(terms, firstParameter: 2)
        let rows = try select(
            "SELECT k.poster_id FROM search_key k WHERE true\(filter.sql) LIMIT $1", [.integer(limit)] + filter.parameters, planOnce: false)
        return (0..<rows.count).map { rows.int64($0, 0) }
    }

    func searchEntries(ids: [Int64]) throws -> [SearchEntry] {
        guard !ids.isEmpty else { return [] }
        let rows = try select(
            """
            SELECT k.poster_id, k.key, p.good1 + p.good2 FROM search_key k JOIN poster p ON p.id = k.poster_id
            WHERE k.poster_id = ANY($1::bigint[])
            """, [.intArray(ids)])
        var byID: [Int64: SearchEntry] = [:]
        for row in 0..<rows.count {
            byID[rows.int64(row, 0)] = SearchEntry(id: rows.int64(row, 0), key: rows.text(row, 1), votes: rows.int(row, 2))
        }
        return ids.compactMap { byID[$0] }
    }

    func searchEntriesByVotes(after: FeedPosition?, visit: (SearchEntry) throws -> Bool) throws {
        var cursor = after
        var batch = 256
        while true {
            var parameters: [SQLParameter] = [.integer(batch)]
            var condition = ""
            if let cursor {
                condition = " WHERE ((p.good1 + p.good2), p.id) < ($2, $3)"
                parameters += [.integer(cursor.votes), .int(cursor.id)]
            }
            let rows = try select(
                """
                SELECT p.id, k.key, p.good1 + p.good2 FROM poster p JOIN search_key k ON k.poster_id = p.id\(condition)
                ORDER BY (p.good1 + p.good2) DESC, p.id DESC LIMIT $1
                """, parameters, planOnce: false)
            for row in 0..<rows.count {
                guard try visit(SearchEntry(id: rows.int64(row, 0), key: rows.text(row, 1), votes: rows.int(row, 2))) else { return }
            }
            guard rows.count == batch else { return }
            cursor = FeedPosition(id: rows.int64(rows.count - 1, 0), votes: rows.int(rows.count - 1, 2))
            batch = min(batch * 4, 4096)
        }
    }

    /// The WHERE clause (` AND …`) requiring every term: exact tokens through the GIN index
    /// (`grams @> …`), prefix tokens by a test of the candidate's tokens.
    static func termFilter(_ terms: [IndexTerm], firstParameter: Int) -> (sql: String, parameters: [SQLParameter]) {
        var sql = ""
        var parameters: [SQLParameter] = []
        let exact = terms.filter { !$0.isPrefix }.map(\.token)
        if !exact.isEmpty {
            sql += " AND k.grams @> $\(firstParameter)::text[]"
            parameters.append(.textArray(exact))
        }
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
            "UPDATE poster SET contents = $2::bytea, hashtags = $3::text[] WHERE id = $1",
            [.int(id), .utf8(contents), .textArray(hashtags)])
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
