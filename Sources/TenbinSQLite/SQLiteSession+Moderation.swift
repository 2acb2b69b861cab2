import TenbinKit

/// Moderation in SQLite (schema 11): reports, cleared reporters and hidden marks reference
/// their poster and go with it (`ON DELETE CASCADE`); the audit log outlives the posters it
/// names.
extension SQLiteSession {
    /// Schema 10's tables.
    static let moderationSchema = """
        CREATE TABLE IF NOT EXISTS report (
            poster_id INTEGER NOT NULL REFERENCES poster(id) ON DELETE CASCADE,
            reporter TEXT NOT NULL,
            reason TEXT NOT NULL CHECK (reason IN ('spam', 'abuse', 'illegal', 'other')),
            note TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (poster_id, reporter)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS report_cleared (
            poster_id INTEGER NOT NULL REFERENCES poster(id) ON DELETE CASCADE,
            reporter TEXT NOT NULL,
            PRIMARY KEY (poster_id, reporter)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS poster_hidden (
            poster_id INTEGER PRIMARY KEY REFERENCES poster(id) ON DELETE CASCADE,
            since INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS audit (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at INTEGER NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            poster_id INTEGER NOT NULL,
            reason TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS audit_poster ON audit(poster_id, id);

        """

    func hiddenPosters() throws -> [HiddenPoster] {
        try db.statement("SELECT poster_id, since FROM poster_hidden ORDER BY poster_id").map {
            HiddenPoster(posterID: $0.int64(0), since: Timestamp(secondsSince1970: $0.int64(1)))
        }
    }

    func reports(posterID: Int64?) throws -> [Report] {
        let columns = "SELECT poster_id, reporter, reason, note, created_at FROM report"
        let order = " ORDER BY poster_id, created_at, reporter"
        let statement =
            try posterID.map { try db.statement(columns + " WHERE poster_id = ?" + order).bind($0) } ?? db.statement(columns + order)
        return try statement.map {
            Report(
                posterID: $0.int64(0), reporter: $0.text(1), reason: ReportReason(rawValue: $0.text(2)) ?? .other, note: $0.text(3),
                createdAt: Timestamp(secondsSince1970: $0.int64(4)))
        }
    }

    func clearedReporters(posterID: Int64?) throws -> [ClearedReporter] {
        let columns = "SELECT poster_id, reporter FROM report_cleared"
        let order = " ORDER BY poster_id, reporter"
        let statement =
            try posterID.map { try db.statement(columns + " WHERE poster_id = ?" + order).bind($0) } ?? db.statement(columns + order)
        return try statement.map { ClearedReporter(posterID: $0.int64(0), reporter: $0.text(1)) }
    }

    func auditEntries(posterID: Int64?, beforeID: Int64?, limit: Int) throws -> [AuditEntry] {
        guard limit > 0 else { return [] }
        let statement = try db.statement(
            """
            SELECT id, at, actor, action, poster_id, reason FROM audit
            WHERE (?1 IS NULL OR poster_id = ?1) AND (?2 IS NULL OR id < ?2) ORDER BY id DESC LIMIT ?3
            """
        ).bind(posterID, beforeID, limit)
        return try statement.map {
            AuditEntry(
                id: $0.int64(0), at: Timestamp(secondsSince1970: $0.int64(1)), actor: $0.text(2),
                action: ModerationAction(rawValue: $0.text(3)) ?? .hide, posterID: $0.int64(4), reason: $0.text(5))
        }
    }

    func insertReport(_ report: Report) throws -> Bool {
        try db.statement(
            "INSERT INTO report (poster_id, reporter, reason, note, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
        ).bind(report.posterID, report.reporter, report.reason.rawValue, report.note, report.createdAt.secondsSince1970).run()
        return db.changes == 1
    }

    func deleteReports(posterID: Int64) throws {
        try db.statement("DELETE FROM report WHERE poster_id = ?").bind(posterID).run()
    }

    func insertClearedReporters(_ cleared: [ClearedReporter]) throws {
        for entry in cleared {
            try db.statement("INSERT INTO report_cleared (poster_id, reporter) VALUES (?, ?) ON CONFLICT DO NOTHING")
                .bind(entry.posterID, entry.reporter).run()
        }
    }

    func setHidden(posterID: Int64, since: Timestamp?) throws {
        if let since {
            try db.statement("INSERT INTO poster_hidden (poster_id, since) VALUES (?, ?) ON CONFLICT DO NOTHING")
                .bind(posterID, since.secondsSince1970).run()
        } else {
            try db.statement("DELETE FROM poster_hidden WHERE poster_id = ?").bind(posterID).run()
        }
    }

    func appendAudit(_ entry: AuditEntry) throws -> Int64 {
        try db.statement("INSERT INTO audit (at, actor, action, poster_id, reason) VALUES (?, ?, ?, ?, ?) RETURNING id")
            .bind(entry.at.secondsSince1970, entry.actor, entry.action.rawValue, entry.posterID, entry.reason).first { $0.int64(0) } ?? 0
    }

    func insertAudit(_ entries: [AuditEntry]) throws {
        for entry in entries {
            try db.statement(
                "INSERT INTO audit (id, at, actor, action, poster_id, reason) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
            ).bind(entry.id, entry.at.secondsSince1970, entry.actor, entry.action.rawValue, entry.posterID, entry.reason).run()
        }
    }
}
