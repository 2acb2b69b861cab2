/// Moderation without accounts: anyone may report a poster, and once enough distinct
/// reporters have, it is hidden from the public (kept, with its images) until a moderator
/// restores or removes it. Every front end — `tenbin moderation`, the admin API, `/admin` —
/// acts through these methods, and every action is written to the audit log in the same
/// transaction as the change it records.
extension Board {
    /// The most characters a report's note may have.
    public static let maximumReportNote = 500
    /// The most characters a moderator's reason may have.
    public static let maximumModerationReason = 500
    /// How many distinct reporters hide a poster unless configured otherwise.
    public static let defaultReportThreshold = 3
    /// Who the audit log names when reports reached the threshold.
    public static let reportsActor = "reports"

    /// Records `reporter`'s report of a poster the public can see; when the reporters who count
    /// (those a restore did not clear) reach ``Configuration/reportThreshold``, hides it in the
    /// same transaction and logs that. One report per reporter per poster: a second is refused
    /// (``ModerationError/alreadyReported(_:)``).
    @discardableResult
    public func report(id: Int64, reason: ReportReason, note: String = "", reporter: String) throws -> ReportOutcome {
        guard note.count <= Self.maximumReportNote else { throw ModerationError.noteTooLong(note.count) }
        try Self.checkActor(reporter)
        let threshold = configuration.reportThreshold
        guard threshold >= 1 else { throw ModerationError.invalidThreshold(threshold) }
        let now = configuration.now()
        let outcome = try store.write { writing -> ReportOutcome? in
            guard try !writing.posters(ids: [id]).isEmpty else { return nil }
            let hidden = try writing.hiddenPosters().contains { $0.posterID == id }
            if hidden { return nil }
            let report = Report(posterID: id, reporter: reporter, reason: reason, note: note, createdAt: now)
            guard try writing.insertReport(report) else { throw ModerationError.alreadyReported(id) }
            let counted = try Self.counted(id, in: writing)
            guard counted >= threshold else { return ReportOutcome(posterID: id, counted: counted, hidNow: false) }
            try writing.setHidden(posterID: id, since: now)
            _ = try writing.appendAudit(
                AuditEntry(
                    at: now, actor: Self.reportsActor, action: .hide, posterID: id,
                    reason: "\(counted) reporters (threshold \(threshold))"))
            return ReportOutcome(posterID: id, counted: counted, hidNow: true)
        }
        guard let outcome else { throw BoardError.noSuchPoster(id) }
        return outcome
    }

    /// How many of a poster's reporters count toward hiding it.
    private static func counted(_ id: Int64, in reading: any StoreReading) throws -> Int {
        let cleared = Set(try reading.clearedReporters(posterID: id).map(\.reporter))
        return try reading.reports(posterID: id).count { !cleared.contains($0.reporter) }
    }

    /// The review queue: every hidden or reported poster, the latest activity first.
    public func moderationQueue() throws -> [ModerationItem] {
        try store.read { reading in
            let hidden = Dictionary(uniqueKeysWithValues: try reading.hiddenPosters().map { ($0.posterID, $0.since) })
            let reports = Dictionary(grouping: try reading.reports(posterID: nil), by: \.posterID)
            let cleared = Set(try reading.clearedReporters(posterID: nil))
            let ids = Set(hidden.keys).union(reports.keys).sorted()
            let items = try reading.posters(ids: ids).map { poster in
                let theirs = reports[poster.id] ?? []
                return ModerationItem(
                    poster: poster, hiddenSince: hidden[poster.id], reports: theirs,
                    counted: theirs.count { !cleared.contains(ClearedReporter(posterID: poster.id, reporter: $0.reporter)) })
            }
            return items.sorted { ($0.latest?.secondsSince1970 ?? 0, $0.poster.id) > ($1.latest?.secondsSince1970 ?? 0, $1.poster.id) }
        }
    }

    /// One poster as a moderator sees it, hidden or not.
    public func moderationItem(id: Int64) throws -> ModerationItem {
        let item = try store.read { reading in try Self.item(id, in: reading) }
        guard let item else { throw BoardError.noSuchPoster(id) }
        return item
    }

    private static func item(_ id: Int64, in reading: any StoreReading) throws -> ModerationItem? {
        guard let poster = try reading.posters(ids: [id]).first else { return nil }
        let since = try reading.hiddenPosters().first { $0.posterID == id }?.since
        return ModerationItem(
            poster: poster, hiddenSince: since, reports: try reading.reports(posterID: id), counted: try counted(id, in: reading))
    }

    /// Hides a poster from the public (kept, with its images), logged as `actor`'s with `reason`.
    @discardableResult
    public func hide(id: Int64, actor: String, reason: String = "") throws -> ModerationItem {
        try moderate(id, .hide, actor: actor, reason: reason) { writing, now in
            try writing.setHidden(posterID: id, since: now)
        }
    }

    /// Shows a poster again and clears its reports: its reporters so far no longer count toward
    /// hiding it, so the same reporters cannot hide it again. Logged as `actor`'s with `reason`.
    @discardableResult
    public func restore(id: Int64, actor: String, reason: String = "") throws -> ModerationItem {
        try moderate(id, .restore, actor: actor, reason: reason) { writing, _ in
            let reporters = try writing.reports(posterID: id).map { ClearedReporter(posterID: id, reporter: $0.reporter) }
            try writing.insertClearedReporters(reporters)
            try writing.deleteReports(posterID: id)
            try writing.setHidden(posterID: id, since: nil)
        }
    }

    /// Deletes a poster with its reports, and the images no other poster uses, as
    /// ``delete(id:)`` does; the audit entry is written in the same transaction.
    @discardableResult
    public func remove(id: Int64, actor: String, reason: String = "", options: RemoveOptions = RemoveOptions()) throws -> Poster {
        try Self.checkActor(actor)
        guard reason.count <= Self.maximumModerationReason else { throw ModerationError.reasonTooLong(reason.count) }
        // The images' hashes are found (a picture stored before hashes were is decoded) before
        // the transaction that blocks them, deletes the poster and logs it, all or nothing.
        let blocked = options.blockImages ? try imagesToBlock(ofPoster: id) : []
        let now = configuration.now()
        return try delete(id: id) { writing, _ in
            _ = try Self.writeBlocks(blocked, ofPoster: id, writing, createdAt: now)
            _ = try writing.appendAudit(AuditEntry(at: now, actor: actor, action: .remove, posterID: id, reason: reason))
        }
    }

    /// Up to `limit` audit entries (of one poster when given), with ids below `before` when
    /// given, newest first.
    public func auditLog(posterID: Int64? = nil, before: Int64? = nil, limit: Int = 100) throws -> [AuditEntry] {
        try store.readSingle { try $0.auditEntries(posterID: posterID, beforeID: before, limit: limit) }
    }

    /// Runs a moderator's `change` to an existing poster and logs it, in one transaction.
    private func moderate(
        _ id: Int64, _ action: ModerationAction, actor: String, reason: String,
        change: (any StoreWriting, Timestamp) throws -> Void
    ) throws -> ModerationItem {
        try Self.checkActor(actor)
        guard reason.count <= Self.maximumModerationReason else { throw ModerationError.reasonTooLong(reason.count) }
        let now = configuration.now()
        let item = try store.write { writing -> ModerationItem? in
            guard try !writing.posters(ids: [id]).isEmpty else { return nil }
            try change(writing, now)
            _ = try writing.appendAudit(AuditEntry(at: now, actor: actor, action: action, posterID: id, reason: reason))
            return try Self.item(id, in: writing)
        }
        guard let item else { throw BoardError.noSuchPoster(id) }
        return item
    }

    /// Refuses an actor or reporter name that is empty or over 64 characters.
    static func checkActor(_ name: String) throws(ModerationError) {
        guard (1...64).contains(name.count) else { throw .invalidActor(name) }
    }
}

extension StoreReading {
    /// Everything the store holds about moderation (a copy's), the audit log oldest first.
    func moderationRecords() throws -> ModerationRecords {
        var records = ModerationRecords()
        records.hidden = try hiddenPosters()
        records.reports = try reports(posterID: nil)
        records.cleared = try clearedReporters(posterID: nil)
        var before: Int64?
        while true {
            let entries = try auditEntries(posterID: nil, beforeID: before, limit: 5000)
            guard let last = entries.last else { break }
            records.audit += entries
            before = last.id
        }
        records.audit.reverse()
        return records
    }
}

extension StoreWriting {
    /// Writes `records` (a copy's; what is present already is left as it is).
    func insertModeration(_ records: ModerationRecords) throws {
        for hidden in records.hidden { try setHidden(posterID: hidden.posterID, since: hidden.since) }
        for report in records.reports { _ = try insertReport(report) }
        try insertClearedReporters(records.cleared)
        try insertAudit(records.audit)
    }
}
