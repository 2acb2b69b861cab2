import TenbinKit

/// Posters in PostgreSQL: the backend for boards that outgrow one machine, where several
/// tenbin processes on several machines share one database (and one blob folder).
///
/// Every call borrows a connection from a small pool for its length. A read of several rows
/// is one statement (one snapshot, one round trip); a write is one transaction. Nothing here
/// holds a lock on the whole database: votes are single-row updates, inserts take one
/// advisory lock so ids commit in order, and blob references are guarded per digest.
public final class PostgresStore: Sendable {
    /// The database.
    public let target: ConnectionTarget
    let pool: ConnectionPool
    /// Announces committed changes to every process listening (see ``ChangeNotifier``).
    let notifier: ChangeNotifier

    /// Opens the database at `url` (any libpq connection string or URI) with a pool of at
    /// most `poolSize` connections, creating or upgrading the schema unless `migrate` is false.
    public init(url: String, poolSize: Int = ConnectionPool.defaultSize, migrate: Bool = true) throws {
        guard poolSize >= 1 else {
            throw PostgresError(
                kind: .invalidInput, sqlState: nil, message: "the connection pool size must be at least 1 (got \(poolSize))", target: "")
        }
        target = try ConnectionTarget(url)
        pool = ConnectionPool(target: target, size: poolSize)
        notifier = ChangeNotifier(pool: pool)
        if migrate { _ = try self.migrate() }
    }

    deinit {
        // A short-lived process (one `tenbin vote`) must not exit before its change is announced.
        notifier.flush()
    }

    /// Waits until every change committed through this store has been announced to listeners.
    public func flushNotifications() {
        notifier.flush()
    }

    /// Creates or upgrades the schema to the newest version; returns the versions applied.
    @discardableResult
    public func migrate() throws -> [Int] {
        try pool.withConnection { try PostgresSchema.migrate(on: $0) }
    }

    /// Upgrades the schema only as far as `version` (tests build databases at each earlier version).
    @discardableResult
    public func migrate(to version: Int) throws -> [Int] {
        try pool.withConnection { try PostgresSchema.migrate(on: $0, to: version) }
    }

    /// The schema version the database is at.
    public func schemaVersion() throws -> Int {
        try pool.withConnection { try PostgresSchema.version(on: $0) }
    }

    // MARK: Reading

    /// The columns a poster is decoded from (``decodePoster(_:_:)``), hashtags aggregated in
    /// the same statement so a page is one round trip and one snapshot.
    static let posterColumns = """
        SELECT p.id, p.contents, p.good1, p.good2, p.created_at,
               b1.digest, b1.format, b1.width, b1.height, b1.bytes,
               b2.digest, b2.format, b2.width, b2.height, b2.bytes,
               (SELECT array_agg(h.tag ORDER BY h.position) FROM hashtag h WHERE h.poster_id = p.id)
        FROM poster p JOIN blob b1 ON b1.digest = p.image1 JOIN blob b2 ON b2.digest = p.image2
        """

    /// The ORDER BY of a feed order; popular's expression matches the `poster_popular` index.
    static func orderBy(_ order: FeedOrder) -> String {
        order == .new ? "p.id DESC" : "(p.good1 + p.good2) DESC, p.id DESC"
    }

    /// One poster, or nil.
    public func poster(id: Int64) throws -> Poster? {
        try pool.withConnection { try Self.poster(id: id, on: $0) }
    }

    static func poster(id: Int64, on connection: Connection) throws -> Poster? {
        let rows = try connection.query(posterColumns + " WHERE p.id = $1", [.int(id)])
        return rows.count == 0 ? nil : try decodePoster(rows, 0)
    }

    /// The posters with these ids that exist, in the order of `ids`, from one snapshot.
    public func posters(ids: [Int64]) throws -> [Poster] {
        guard !ids.isEmpty else { return [] }
        return try pool.withConnection { try Self.posters(ids: ids, on: $0) }
    }

    static func posters(ids: [Int64], on connection: Connection) throws -> [Poster] {
        guard !ids.isEmpty else { return [] }
        let rows = try connection.query(posterColumns + " WHERE p.id = ANY($1::bigint[])", [.intArray(ids)])
        var byID: [Int64: Poster] = [:]
        for row in 0..<rows.count {
            let poster = try decodePoster(rows, row)
            byID[poster.id] = poster
        }
        return ids.compactMap { byID[$0] }
    }

    /// A page of posters in `order`.
    public func posters(order: FeedOrder, limit: Int, offset: Int) throws -> [Poster] {
        guard limit > 0 else { return [] }
        return try pool.withConnection { connection in
            let rows = try connection.query(
                Self.posterColumns + " ORDER BY \(Self.orderBy(order)) LIMIT $1 OFFSET $2", [.integer(limit), .integer(max(0, offset))])
            return try (0..<rows.count).map { try Self.decodePoster(rows, $0) }
        }
    }

    /// A page of posters after a cursor: newest first, ids below `beforeID`; popular, below
    /// (`votes`, `id`) in (votes, id) order.
    public func posters(order: FeedOrder, limit: Int, after cursor: (votes: Int, id: Int64)?) throws -> [Poster] {
        guard limit > 0 else { return [] }
        return try pool.withConnection { connection in
            var condition = ""
            var parameters: [SQLParameter] = [.integer(limit)]
            if let cursor {
                switch order {
                case .new:
                    condition = " WHERE p.id < $2"
                    parameters.append(.int(cursor.id))
                case .popular:
                    condition = " WHERE ((p.good1 + p.good2), p.id) < ($2, $3)"
                    parameters += [.integer(cursor.votes), .int(cursor.id)]
                }
            }
            let rows = try connection.query(
                Self.posterColumns + condition + " ORDER BY \(Self.orderBy(order)) LIMIT $1", parameters)
            return try (0..<rows.count).map { try Self.decodePoster(rows, $0) }
        }
    }

    /// How many posters there are.
    public func count() throws -> Int {
        try pool.withConnection { try $0.query("SELECT count(*) FROM poster").int(0, 0) }
    }

    /// The stored image an upload became under the given encoding options, if it was seen.
    public func storedImage(source: Digest, encodingKey: String) throws -> StoredImage? {
        try pool.withConnection { connection in
            let rows = try connection.query(
                """
                SELECT b.digest, b.format, b.width, b.height, b.bytes FROM upload u JOIN blob b ON b.digest = u.digest
                WHERE u.source = $1 AND u.options = $2
                """, [.text(source.hex), .text(encodingKey)])
            return rows.count == 0 ? nil : try Self.decodeImage(rows, 0, from: 0, target: connection.target)
        }
    }

    /// Every blob row, by digest.
    public func blobRows() throws -> [StoredImage] {
        try pool.withConnection { connection in
            let rows = try connection.query("SELECT digest, format, width, height, bytes FROM blob ORDER BY digest")
            return try (0..<rows.count).map { try Self.decodeImage(rows, $0, from: 0, target: connection.target) }
        }
    }

    // MARK: Decoding

    static func decodePoster(_ rows: Rows, _ row: Int) throws -> Poster {
        Poster(
            id: rows.int64(row, 0), contents: rows.bytesAsText(row, 1),
            hashtags: rows.isNull(row, 15) ? [] : ArrayLiteral.parse(rows.text(row, 15)),
            good1: rows.int(row, 2), good2: rows.int(row, 3), createdAt: Timestamp(secondsSince1970: rows.int64(row, 4)),
            images: [try decodeImage(rows, row, from: 5), try decodeImage(rows, row, from: 10)])
    }

    static func decodeImage(_ rows: Rows, _ row: Int, from column: Int, target: ConnectionTarget? = nil) throws -> StoredImage {
        let text = rows.text(row, column)
        guard let digest = Digest(hex: text), let format = ImageFormat(rawValue: rows.text(row, column + 1)) else {
            throw PostgresError(kind: .internal, sqlState: nil, message: "blob row \(text) is malformed", target: target?.description ?? "")
        }
        return StoredImage(
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
