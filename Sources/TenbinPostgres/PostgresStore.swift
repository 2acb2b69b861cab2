import TenbinKit

/// Posters in PostgreSQL: the backend for boards that outgrow one machine, where several
/// tenbin processes on several machines share one database (and one blob folder).
///
/// Every call borrows a connection from a small pool for its length. A read of several rows
/// is one statement (one snapshot, one round trip); a write is one transaction. Nothing here
/// holds a lock on the whole database: votes are single-row updates, inserts take one
/// advisory lock so ids commit in order, and blob references are guarded per digest.
public final class PostgresStore: StoreBackend {
    /// The database.
    package let target: ConnectionTarget
    let pool: ConnectionPool
    /// Announces committed changes to every process listening (see ``ChangeNotifier``).
    let notifier: ChangeNotifier
    let changeSource: PostgresChangeSource
    /// How many vote batches this store committed (every ``VoteSnapshot/pruneEvery``th prunes
    /// the vote log).
    private let batches = Locked(Int64(0))
    /// The search index's blocks this store's reads have read, for its later searches.
    let searchBlocks = SearchBlockCache()
    /// How many searches (``visibleSearchPosters(_:order:after:offset:limit:)``) were answered
    /// from the kept segment list and blocks outside any transaction, how many found the kept
    /// list outdated and were done again in a read, and how many were answered by the newest
    /// posters alone (``PostgresSession/walkedPage(_:below:offset:limit:)``).
    private let keptSearchCounts = Locked((answered: 0, outdated: 0, walked: 0))

    /// ``keptSearchCounts`` (tests and benchmarks).
    package var keptSearches: (answered: Int, outdated: Int, walked: Int) { keptSearchCounts.withLock { $0 } }

    /// Opens the database at `url` (any libpq connection string or URI) with a pool of at
    /// most `poolSize` connections, creating or upgrading the schema unless `migrate` is false.
    /// Reads go to the hot standbys at `replicas` (each with a pool of `poolSize`) while they
    /// keep within `replicaMaxLag` of it (see ``ReplicaSet``).
    public init(
        url: String, poolSize: Int = ConnectionPool.defaultSize, migrate: Bool = true, replicas: [String] = [],
        replicaMaxLag: Duration = PostgresStore.defaultReplicaMaxLag
    ) throws {
        guard poolSize >= 1 else {
            throw PostgresError(
                kind: .invalidInput, sqlState: nil, message: "the connection pool size must be at least 1 (got \(poolSize))", target: "")
        }
        target = try ConnectionTarget(url)
        pool = ConnectionPool(target: target, size: poolSize)
        notifier = ChangeNotifier(pool: pool)
        let replicaTargets = try replicas.map { url in
            do {
                return try ConnectionTarget(url)
            } catch let error as PostgresError {
                throw PostgresError(kind: .invalidInput, sqlState: nil, message: "the replica: \(error.message)", target: "")
            }
        }
        let replicaSet =
            replicaTargets.isEmpty ? nil : try ReplicaSet(targets: replicaTargets, poolSize: poolSize, maxLag: replicaMaxLag, primary: pool)
        self.replicas = replicaSet
        var learn: (@Sendable (Int64?) -> Void)?
        if let replicaSet { learn = { position in replicaSet.learn(position) } }
        changeSource = PostgresChangeSource(listener: ChangeListener(target: target), pool: pool, learn: learn)
        if migrate { _ = try self.migrate() }
    }

    /// The hot standbys reads go to, if any.
    let replicas: ReplicaSet?

    /// Whether each standby is in rotation and how many reads it answered (benchmarks).
    package var replicaStates: [(inRotation: Bool, reads: Int)] {
        replicas?.replicas.map { replica in
            let snapshot = replica.snapshot
            return (snapshot.inRotation, snapshot.reads)
        } ?? []
    }

    /// The default of `tenbin serve --replica-max-lag`: how far behind the primary a hot
    /// standby may fall and still be read from.
    public static let defaultReplicaMaxLag = Duration.seconds(5)

    /// Announces every change committed through this store (a short-lived process, one
    /// `tenbin vote`, must not exit before its change is announced), stops listening and
    /// closes the pool's connections once the calls using them have ended.
    public func close() {
        notifier.flush()
        changeSource.close()
        replicas?.close()
        pool.close()
    }

    /// Waits until every change committed through this store has been announced to listeners.
    package func flushNotifications() {
        notifier.flush()
    }

    /// Creates or upgrades the schema to the newest version; returns the versions applied.
    @discardableResult
    public func migrate() throws -> [Int] {
        try translatingErrors { try pool.withConnection { try PostgresSchema.migrate(on: $0) } }
    }

    /// Upgrades the schema only as far as `version` (tests build databases at each earlier version).
    @discardableResult
    public func migrate(to version: Int) throws -> [Int] {
        try pool.withConnection { try PostgresSchema.migrate(on: $0, to: version) }
    }

    /// The schema version the database is at.
    public func schemaVersion() throws -> Int {
        try translatingErrors { try pool.withConnection { try PostgresSchema.version(on: $0) } }
    }

    // MARK: The seam

    /// `user@host:port/dbname` (never a password).
    public var location: String { target.description }

    /// Runs `body` in a REPEATABLE READ, READ ONLY transaction: one snapshot, whatever it
    /// reads, and no lock that a writer waits for.
    ///
    /// Its BEGIN goes out with its first statement, in one round trip, and its COMMIT without
    /// waiting for the answer (see ``Connection/deferBegin(_:)``): everything the body read
    /// came from the one snapshot, and a read-only transaction's COMMIT changes nothing. A
    /// body that runs no statement begins no transaction.
    public func read<T>(_ body: (any StoreReading) throws -> T) throws -> T {
        try translatingErrors {
            try readConnection { connection in
                try connection.deferBegin(Self.readBegin)
                do {
                    let value = try body(PostgresSession(connection, searchBlocks: searchBlocks))
                    try connection.commitWithoutWaiting()
                    return value
                } catch {
                    // Nothing was written; a failed ROLLBACK means the connection is gone.
                    connection.cancelDeferredBegin()
                    if !connection.isBroken && connection.isInTransaction { _ = try? connection.execute("ROLLBACK") }
                    throw error
                }
            }
        }
    }

    /// Runs `body` (one read) on a connection of a standby that has replayed far enough, or of
    /// the primary (see ``ReplicaSet``).
    private func readConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        guard let replicas else { return try pool.withConnection(body) }
        return try replicas.read(body)
    }

    /// How ``read(_:)`` begins its transaction.
    static let readBegin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

    /// Runs `body`'s one statement outside any transaction (it is its own snapshot): one round
    /// trip, through a statement prepared once per connection. A second statement in `body`
    /// fails (kind `internal`): that read needs ``read(_:)``.
    public func readSingle<T>(_ body: (any StoreReading) throws -> T) throws -> T {
        try translatingErrors {
            try readConnection { connection in try body(PostgresSession(connection, single: true)) }
        }
    }

    /// A page of the matches of `query` newest first (every hit's key read with its row and
    /// rechecked when the index does not answer the query exactly), without the hidden posters,
    /// which the statement reading the hits' rows leaves out (so a page is not preceded by a
    /// read of the hidden posters); nil in other orders (the core ranks the candidates, or
    /// walks by votes or scores).
    ///
    /// When the search index's segment list and every block the search needs are kept
    /// (``SearchBlockCache``), the search runs outside any transaction: the hits come from the
    /// kept blocks, and the statement reading their rows also checks, in its own snapshot, that
    /// the segment table holds exactly the kept list and no merge is under way
    /// (``PostgresSession/segmentsMatchSQL(_:)``). A page whose hits' first batch fills it is
    /// then one statement, one round trip, where a read costs two (its BEGIN with the segment
    /// list, then the rows) and the core's filter of hidden posters a third.
    ///
    /// Why nothing kept is trusted without that check, and why change notifications are not
    /// used to keep it current: a write's NOTIFY is sent by ``ChangeNotifier`` after its
    /// transaction has committed, from another thread, and reaches a listener later still. A
    /// search started between a commit (a new segment, a merge's end, a poster hidden) and the
    /// notification's arrival would read a list the notification had not yet invalidated, and
    /// a listener that lost its connection misses notifications altogether. The check in the
    /// statement has no such window: the rows, their stale marks, the hidden posters and the
    /// segment table are all read in the one snapshot, so the answer is exactly the one a read
    /// in that snapshot would give. When the check fails the search is done again in a read
    /// (which keeps the list it reads for the next search); when a block is not kept, too.
    /// Hidden posters are never kept at all: the statement leaves them out.
    public func visibleSearchPosters(_ query: SearchQuery, order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int) throws
        -> [Poster]?
    {
        guard order == .new else { return nil }
        let recheckAll = !SearchGrams.indexIsExact(for: query)
        if let kept = searchBlocks.kept {
            do {
                let posters = try translatingErrors {
                    try readConnection { connection in
                        let session = PostgresSession(connection, searchBlocks: searchBlocks)
                        session.searchSegments = kept.list.map { ($0, false) }
                        session.verifiedSegments = kept
                        return try session.exactNewestPosters(
                            query, below: after?.id, offset: offset, limit: limit, visibleOnly: true, recheckAll: recheckAll)
                    }
                }
                keptSearchCounts.withLock { $0.answered += 1 }
                return posters
            } catch is PostgresSession.KeptSegmentsMoved {
                keptSearchCounts.withLock { $0.outdated += 1 }
                searchBlocks.forgetSegments(kept.list)
            } catch is PostgresSession.KeptBlocksMissing {
                // The read below reads and keeps them.
            }
        }
        let walked = try translatingErrors {
            try readConnection { connection in
                try PostgresSession(connection, single: true).walkedPage(query, below: after?.id, offset: offset, limit: limit)
            }
        }
        if let walked {
            keptSearchCounts.withLock { $0.walked += 1 }
            return walked
        }
        return try readSearchPosters(query, after: after, offset: offset, limit: limit)
    }

    /// ``visibleSearchPosters(_:order:after:offset:limit:)`` in one read, which reads the
    /// segment list in its own transaction (and keeps it): the way when nothing kept answers.
    func readSearchPosters(_ query: SearchQuery, after: FeedPosition?, offset: Int, limit: Int) throws -> [Poster]? {
        try read { reading in
            // `read` hands over a PostgresSession.
            try (reading as? PostgresSession)?.exactNewestPosters(
                query, below: after?.id, offset: offset, limit: limit, visibleOnly: true,
                recheckAll: !SearchGrams.indexIsExact(for: query))
        }
    }

    /// A page of the posters the public may see, in one statement: the page's statement with
    /// the hidden posters left out (`NOT EXISTS` in `poster_hidden`, an index probe a row read),
    /// where the core would read the hidden posters first, a round trip of its own.
    public func visiblePage(order: FeedOrder, after: FeedPosition?, offset: Int, limit: Int) throws -> [Poster]? {
        try translatingErrors {
            try readConnection { connection in
                try PostgresSession(connection, single: true).page(
                    order: order, after: after, offset: offset, limit: limit, visibleOnly: true)
            }
        }
    }

    /// Runs `body` in one READ COMMITTED transaction, from the start again (a few times at
    /// most) when it lost a deadlock; the posters it changed are announced after it commits.
    public func write<T>(_ body: (any StoreWriting) throws -> T) throws -> T {
        var changed: Set<Int64> = []
        let value = try translatingErrors {
            try pool.transaction { connection in
                let session = PostgresSession(connection)
                session.isWriting = true
                let value = try body(session)
                changed = session.changed
                return value
            }
        }
        // This process's next reads see the write, on a standby too.
        replicas?.noteCommit()
        if !changed.isEmpty { notifier.changed(Array(changed)) }
        return value
    }

    /// A batch of votes as one statement outside any explicit transaction: one round trip
    /// that commits on its own (and again, a few times at most, if it lost a deadlock); the
    /// posters it changed are announced after it commits.
    public func commitVotes(_ deltas: [VoteDelta], at time: Timestamp) throws -> [Poster] {
        guard !deltas.isEmpty else { return [] }
        let posters = try translatingErrors {
            var attempt = 0
            while true {
                do {
                    return try pool.withConnection { connection in
                        let posters = try Self.addVotes(deltas, at: time, on: connection, prepared: true)
                        // Before the votes are answered: the voter's next page shows them.
                        replicas?.noteCommit(on: connection)
                        return posters
                    }
                } catch let error as PostgresError where error.isRetryable && attempt < 8 {
                    attempt += 1
                }
            }
        }
        if !posters.isEmpty { notifier.changed(posters.map(\.id)) }
        let due = batches.withLock {
            $0 += 1
            return $0 % VoteSnapshot.pruneEvery == 0
        }
        // Each server prunes after every so many of its own batches, in a transaction of its
        // own; a failed pruning leaves the log as it was, for the next one.
        if due { _ = try? write { try $0.pruneVoteLog(now: time, keeping: VoteSnapshot.retention) } }
        return posters
    }

    /// The hot standbys' state (``ReplicaSet/metricsText``), when there are any.
    public var metricsText: String { replicas?.metricsText ?? "" }

    /// Live-feed changes, pushed by LISTEN/NOTIFY.
    public var changes: any ChangeSource { changeSource }

    /// What tenbin's own checks of the database find (see `PostgresStore+Check.swift`).
    public func integrityProblems() throws -> [String] {
        try translatingErrors { try databaseProblems() }
    }

    /// Runs `body`, turning connection trouble into the store errors every backend reports.
    func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError {
            throw error.storeError(at: location)
        }
    }

    // MARK: Blob locks

    /// Takes the transaction-scoped advisory lock of each digest, in sorted order (so two
    /// transactions locking overlapping sets cannot deadlock).
    static func lockBlobs(_ digests: Set<Digest>, on connection: Connection) throws {
        guard !digests.isEmpty else { return }
        try connection.query("SELECT pg_advisory_xact_lock(k) FROM unnest(\(digests.map(lockKey).sorted())::bigint[]) AS k ORDER BY k")
    }

    /// A digest's advisory lock key: its first 64 bits. Two digests sharing a key only share
    /// a lock, which costs waiting, never correctness.
    static func lockKey(_ digest: Digest) -> Int64 {
        var value: UInt64 = 0
        for byte in digest.hex.utf8.prefix(16) {
            let nibble = byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : byte - UInt8(ascii: "a") + 10
            value = value << 4 | UInt64(nibble)
        }
        return Int64(bitPattern: value)
    }

    // MARK: Votes

    /// Adds the deltas (ids distinct and ascending) in one statement, counts and the minute
    /// buckets of `time` in the posters' timelines, logs them in the vote log under the next
    /// batch number (whose counter row it locks before any poster's:
    /// `PostgresSession+VoteLog.swift`), and reads the updated posters whole,
    /// ascending by id. A batch of several posters locks their rows in id
    /// order first, inside the same statement: an UPDATE locks rows in whatever order its
    /// plan visits them, which two servers' batches need not share, while every row lock
    /// below is taken by the ordered `FOR UPDATE` before the UPDATE reaches that row, so a
    /// second batch over the same posters waits instead of deadlocking.
    /// `prepared` (outside explicit transactions only): through statements prepared once per
    /// connection, which saves the server planning the statement for every batch.
    static func addVotes(_ deltas: [VoteDelta], at time: Timestamp, on connection: Connection, prepared: Bool = false) throws -> [Poster] {
        guard !deltas.isEmpty else { return [] }
        let ids = PostgresQuery.Shared(deltas.map(\.id))
        let start = Timeline.minuteStart(of: time)
        // The rows are locked in id order by the subquery (its locking read returns each row as
        // the last committed batch left it, so `locked.trend` is the score before this batch,
        // which the vote log keeps); a single poster the same way, so the log reads alike.
        let query = votes(
            ids, deltas, start: start, seconds: time.secondsSince1970,
            from: """
                (SELECT id, trend FROM poster WHERE id = ANY(\(ids)::bigint[]) AND \(unescaped: PostgresSession.afterVoteBatch) \
                ORDER BY id FOR NO KEY UPDATE) AS locked, delta
                """,
            where: "poster.id = locked.id AND delta.id = locked.id")
        let rows = try prepared ? connection.queryPrepared(query) : connection.query(query)
        return try (0..<rows.count).map { try decodePoster(rows, $0) }
    }

    /// The deltas' votes per side added to the posters `ids` (theirs) and to their buckets
    /// starting at `start`, and the posters read back; a hidden poster is left alone (gone for
    /// the public, its votes are refused as a missing poster's). The buckets are written after the
    /// posters' rows are locked (a bucket of a poster that does not exist is not written), so
    /// two batches meet at the poster rows first, in id order.
    private static func votes(
        _ ids: PostgresQuery.Shared, _ deltas: [VoteDelta], start: Int64, seconds: Int64, from sources: PostgresQuery,
        where condition: String
    ) -> PostgresQuery {
        """
        WITH \(unescaped: PostgresSession.voteBatchCTE),
        delta AS (
            SELECT d.*, \(unescaped: trendWeightSQL(count: "d.good1 + d.good2", seconds: "\(seconds)")) AS w
            FROM unnest(\(ids)::bigint[], \(deltas.map(\.good1))::bigint[], \(deltas.map(\.good2))::bigint[]) AS d(id, good1, good2)),
        voted AS (
            UPDATE poster SET good1 = poster.good1 + delta.good1, good2 = poster.good2 + delta.good2\(unescaped: trendVoteAssignment)
            FROM \(sources) WHERE \(unescaped: condition)
            AND NOT poster.hidden
            RETURNING poster.*, locked.trend AS trend_before),
        bucket AS (
            INSERT INTO vote_bucket (poster_id, start, good1, good2)
            SELECT delta.id, \(start)::bigint, delta.good1, delta.good2 FROM delta JOIN voted ON voted.id = delta.id ORDER BY delta.id
            ON CONFLICT (poster_id, start) DO UPDATE SET good1 = vote_bucket.good1 + excluded.good1, good2 = vote_bucket.good2 + excluded.good2),
        \(unescaped: PostgresSession.logVotesCTE)
        \(unescaped: posterColumns(from: "voted")) ORDER BY p.id
        """
    }

    // MARK: Decoding

    /// The columns a poster is decoded from (``decodePoster(_:_:)``): one poster row, its
    /// hashtags and its images' copies of their blob rows included (schema step 6).
    static let posterColumns = posterColumns(from: "poster")

    /// ``posterColumns`` over `table` (a table or a CTE with the poster table's columns).
    /// `adding` more columns after them (written as `, expression AS name`).
    static func posterColumns(from table: String, adding more: String = "") -> String {
        """
        SELECT p.id, p.contents, p.good1, p.good2, p.created_at,
               p.image1, p.image1_format, p.image1_width, p.image1_height, p.image1_bytes,
               p.image2, p.image2_format, p.image2_width, p.image2_height, p.image2_bytes, p.hashtags, p.alt1, p.alt2,
               p.trend\(more)
        FROM \(table) p
        """
    }

    /// The statement of a feed's first page of `limit` posters (no cursor, no offset), as
    /// ``PostgresSession/page(order:after:offset:limit:)`` sends it: the benchmark runs it
    /// through pgbench as the floor under a page.
    package static func firstPageStatement(order: FeedOrder, limit: Int) -> String {
        posterColumns + pageTail(order: order, limit: limit)
    }

    /// A page's ORDER BY and LIMIT: the limit is written into the text (see ``PostgresSession``).
    static func pageTail(order: FeedOrder, limit: Int) -> String {
        " ORDER BY \(orderBy(order)) LIMIT \(min(limit, Int(Int32.max)))"
    }

    /// The ORDER BY of a feed order; popular's expression matches the `poster_popular` index,
    /// trending's `poster_trending`.
    static func orderBy(_ order: FeedOrder) -> String {
        switch order {
        case .new: "p.id DESC"
        case .popular: "p.votes DESC, p.id DESC"
        case .trending: "p.trend DESC, p.id DESC"
        }
    }

    /// How many columns ``posterColumns`` selects and ``decodePoster(_:_:)`` reads: a query
    /// selecting more after them finds its own from this column on.
    static let posterColumnCount = 19

    static func decodePoster(_ rows: Rows, _ row: Int) throws -> Poster {
        try Poster(
            id: rows.int64(row, 0), contents: rows.bytesAsText(row, 1),
            hashtags: rows.textArray(row, 15),
            good1: rows.int(row, 2), good2: rows.int(row, 3), createdAt: Timestamp(secondsSince1970: rows.int64(row, 4)),
            images: [decodeImage(rows, row, from: 5), decodeImage(rows, row, from: 10)], alt1: rows.text(row, 16),
            alt2: rows.text(row, 17), trendingScore: rows.int64(row, 18))
    }

    static func decodeImage(_ rows: Rows, _ row: Int, from column: Int, target: ConnectionTarget? = nil) throws -> StoredImage {
        let text = rows.text(row, column)
        guard let digest = Digest(hex: text), let format = ImageFormat(rawValue: rows.text(row, column + 1)) else {
            throw PostgresError(kind: .internal, sqlState: nil, message: "blob row \(text) is malformed", target: target?.description ?? "")
        }
        return try StoredImage(
            digest: digest, format: format, width: rows.int(row, column + 2), height: rows.int(row, column + 3),
            bytes: rows.int(row, column + 4))
    }
}

/// PostgreSQL's text form of a one-dimensional text array (`{a,"b c","d\"e"}`), read back.
enum ArrayLiteral {
    /// The elements of `literal`; NULL elements (which tenbin never stores) are dropped.
    static func parse(_ literal: String) -> [String] {
        var elements: [String] = []
        var scalars = literal.unicodeScalars.makeIterator()
        guard scalars.next() == "{" else { return [] }
        var current = String.UnicodeScalarView()
        var quoted = false
        var inQuotes = false
        while let scalar = scalars.next() {
            if inQuotes {
                if scalar == "\\" {
                    if let escaped = scalars.next() { current.append(escaped) }
                } else if scalar == "\"" {
                    inQuotes = false
                } else {
                    current.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"":
                inQuotes = true
                quoted = true
            case ",", "}":
                let element = String(current)
                // Unquoted, an empty element is `{}`'s nothing and NULL is a null.
                if quoted || (!element.isEmpty && element != "NULL") { elements.append(element) }
                current = String.UnicodeScalarView()
                quoted = false
                if scalar == "}" { return elements }
            case "\\":
                if let escaped = scalars.next() { current.append(escaped) }
            default:
                current.append(scalar)
            }
        }
        return elements
    }
}
