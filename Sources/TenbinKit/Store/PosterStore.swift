/// Posters in SQLite: the `tenbin.sqlite` file of a store.
///
/// One connection, kept inside a lock: SQLite's handle must be used by one thread at a
/// time, and the lock makes every call below take turns.
public final class PosterStore: PosterStoring {
    private let connection: Locked<Database>

    /// Runs `body` with the connection, holding the lock.
    func withDatabase<T>(_ body: (Database) throws -> T) throws -> T {
        try connection.withLock { database in try body(database) }
    }

    /// Opens (and creates or migrates) the database at `path`. With `create` false and no
    /// file there, the store is an empty one in memory: reading a store that was never
    /// written shows an empty board instead of creating files.
    public init(path: String, create: Bool) throws {
        let exists = FileSystem.exists(path)
        var database: Database
        do {
            database = try Database(path: path, mode: exists ? .readWrite : (create ? .create : .memory))
        } catch let error as SQLiteError where exists && !FileSystem.isWritable(path) {
            // A store on a read-only mount can still be read; any write then fails with a
            // "read-only" error naming the file.
            guard let readOnly = try? Database(path: path, mode: .immutable) else { throw error }
            database = readOnly
        }
        try Migrations.migrate(database)
        self.connection = Locked(database)
    }

    static let posterColumns = """
        SELECT p.id, p.contents, p.good1, p.good2, p.created_at,
               b1.digest, b1.format, b1.width, b1.height, b1.bytes,
               b2.digest, b2.format, b2.width, b2.height, b2.bytes
        FROM poster p JOIN blob b1 ON b1.digest = p.image1 JOIN blob b2 ON b2.digest = p.image2
        """

    public func insert(_ poster: NewPoster, createdAt: Timestamp, encodingKey: String, beforeCommit: () throws -> Void) throws -> Poster {
        try insert([poster], createdAt: createdAt, encodingKey: encodingKey, beforeCommit: beforeCommit)[0]
    }

    public func insert(_ posters: [NewPoster], createdAt: Timestamp, encodingKey: String, beforeCommit: () throws -> Void) throws
        -> [Poster]
    {
        try withDatabase { db in
            try db.transaction {
                let inserted = try posters.map { try Self.insertRows($0, createdAt: createdAt, encodingKey: encodingKey, in: db) }
                try beforeCommit()
                return inserted
            }
        }
    }

    /// Writes one poster's rows: its blobs (once each), the uploads they came from, the
    /// poster and its hashtags. Every insert path goes through here, inside a transaction.
    private static func insertRows(_ poster: NewPoster, createdAt: Timestamp, encodingKey: String, in db: Database) throws -> Poster {
        for (image, source) in zip(poster.images, poster.sources) {
            try insertImageRow(image, source: source, encodingKey: encodingKey, in: db)
        }
        return try insertPosterRows(poster, createdAt: createdAt, in: db)
    }

    /// Writes a blob row (unless present) and the upload it came from.
    static func insertImageRow(_ image: StoredImage, source: Digest?, encodingKey: String, in db: Database) throws {
        try db.statement(
            "INSERT OR IGNORE INTO blob (digest, format, width, height, bytes, source) VALUES (?, ?, ?, ?, ?, ?)"
        ).bind(image.digest.hex, image.format.rawValue, image.width, image.height, image.bytes, source?.hex).run()
        if let source {
            try db.statement("INSERT OR REPLACE INTO upload (source, options, digest) VALUES (?, ?, ?)")
                .bind(source.hex, encodingKey, image.digest.hex).run()
        }
    }

    /// Writes the poster row and its hashtags; its blob rows must already be written.
    static func insertPosterRows(_ poster: NewPoster, createdAt: Timestamp, in db: Database) throws -> Poster {
        try db.statement("INSERT INTO poster (contents, created_at, image1, image2) VALUES (?, ?, ?, ?)")
            .bind(poster.contents, createdAt.secondsSince1970, poster.images[0].digest.hex, poster.images[1].digest.hex).run()
        let id = db.lastInsertedRowID
        for (position, tag) in poster.hashtags.enumerated() {
            try db.statement("INSERT INTO hashtag (poster_id, position, tag) VALUES (?, ?, ?)").bind(id, position, tag).run()
        }
        try indexSearchKey(id: id, contents: poster.contents, hashtags: poster.hashtags, in: db)
        return Poster(
            id: id, contents: poster.contents, hashtags: poster.hashtags, good1: 0, good2: 0,
            createdAt: createdAt, images: poster.images)
    }

    public func vote(id: Int64, side: VoteSide, times: Int) throws -> Poster? {
        try withDatabase { db in
            // One statement: SQLite applies it atomically under the write lock, so concurrent
            // voters in any number of processes never lose or double a vote.
            let column = side.column
            let updated = try db.statement("UPDATE poster SET \(column) = \(column) + ? WHERE id = ?").bind(times, id)
            try updated.run()
            guard db.changes == 1 else { return nil }
            return try Self.poster(id: id, in: db)
        }
    }

    public func poster(id: Int64) throws -> Poster? {
        try withDatabase { db in try Self.poster(id: id, in: db) }
    }

    static func poster(id: Int64, in db: Database) throws -> Poster? {
        let statement = try db.statement(posterColumns + " WHERE p.id = ?").bind(id)
        guard var poster = try statement.first(Self.decodePoster) else { return nil }
        poster.hashtags = try hashtags(of: id, in: db)
        return poster
    }

    public func posters(order: FeedOrder, limit: Int, offset: Int) throws -> [Poster] {
        try withDatabase { db in
            let orderBy = order == .new ? "p.id DESC" : "p.good1 + p.good2 DESC, p.id DESC"
            let statement = try db.statement(Self.posterColumns + " ORDER BY \(orderBy) LIMIT ? OFFSET ?").bind(limit, offset)
            var posters = try statement.map(Self.decodePoster)
            for index in posters.indices {
                posters[index].hashtags = try Self.hashtags(of: posters[index].id, in: db)
            }
            return posters
        }
    }

    static func hashtags(of id: Int64, in db: Database) throws -> [String] {
        try db.statement("SELECT tag FROM hashtag WHERE poster_id = ? ORDER BY position").bind(id).map { $0.text(0) }
    }

    static func decodePoster(_ row: Statement) throws -> Poster {
        Poster(
            id: row.int64(0), contents: row.text(1), hashtags: [], good1: row.int(2), good2: row.int(3),
            createdAt: Timestamp(secondsSince1970: row.int64(4)),
            images: [try decodeImage(row, from: 5), try decodeImage(row, from: 10)])
    }

    private static func decodeImage(_ row: Statement, from column: Int32) throws -> StoredImage {
        let text = row.text(column)
        guard let digest = Digest(hex: text), let format = ImageFormat(rawValue: row.text(column + 1)) else {
            throw SQLiteError(code: 11, message: "blob row \(text) is malformed; run tenbin check", sql: nil)
        }
        return StoredImage(
            digest: digest, format: format, width: row.int(column + 2), height: row.int(column + 3), bytes: row.int(column + 4))
    }

    public func delete(id: Int64) throws -> (poster: Poster, orphaned: [Digest])? {
        try withDatabase { db in
            try db.transaction {
                guard let poster = try Self.poster(id: id, in: db) else { return nil }
                try Self.removeSearchKey(id: id, in: db)
                try db.statement("DELETE FROM poster WHERE id = ?").bind(id).run()
                var orphaned: [Digest] = []
                for digest in Set(poster.images.map(\.digest)).sorted() {
                    let users =
                        try db.statement("SELECT count(*) FROM poster WHERE image1 = ?1 OR image2 = ?1")
                        .bind(digest.hex).first { $0.int(0) } ?? 0
                    if users == 0 {
                        try db.statement("DELETE FROM blob WHERE digest = ?").bind(digest.hex).run()
                        orphaned.append(digest)
                    }
                }
                return (poster, orphaned)
            }
        }
    }

    public func storedImage(source: Digest, encodingKey: String) throws -> StoredImage? {
        try withDatabase { db in
            try db.statement(
                """
                SELECT b.digest, b.format, b.width, b.height, b.bytes FROM upload u JOIN blob b ON b.digest = u.digest
                WHERE u.source = ? AND u.options = ?
                """
            ).bind(source.hex, encodingKey).first { try Self.decodeImage($0, from: 0) }
        }
    }

    public func withWriteLock<T>(_ body: (Set<Digest>) throws -> T) throws -> T {
        try withDatabase { db in
            try db.transaction {
                let referenced = try db.statement("SELECT digest FROM blob").map { Digest(hex: $0.text(0)) }
                return try body(Set(referenced.compactMap { $0 }))
            }
        }
    }

    public func removeUnreferencedBlobRows() throws -> [Digest] {
        try withDatabase { db in
            try db.transaction {
                let unused = try db.statement(
                    """
                    SELECT digest FROM blob b WHERE NOT EXISTS (SELECT 1 FROM poster WHERE image1 = b.digest)
                    AND NOT EXISTS (SELECT 1 FROM poster WHERE image2 = b.digest) ORDER BY digest
                    """
                ).map { $0.text(0) }
                for digest in unused {
                    try db.statement("DELETE FROM blob WHERE digest = ?").bind(digest).run()
                }
                return unused.compactMap(Digest.init(hex:))
            }
        }
    }

    public func blobRows() throws -> [StoredImage] {
        try withDatabase { db in
            try db.statement("SELECT digest, format, width, height, bytes FROM blob ORDER BY digest").map {
                try Self.decodeImage($0, from: 0)
            }
        }
    }

    public func integrityProblems() throws -> [String] {
        try withDatabase { db in
            var problems = try db.statement("PRAGMA integrity_check").map { $0.text(0) }.filter { $0 != "ok" }
            problems += try db.statement("PRAGMA foreign_key_check").map {
                "row \($0.int64(1)) of table \($0.text(0)) references a missing row in \($0.text(2))"
            }
            return problems + (try Self.searchProblems(in: db))
        }
    }

    public func count() throws -> Int {
        try withDatabase { db in try db.statement("SELECT count(*) FROM poster").first { $0.int(0) } ?? 0 }
    }
}
