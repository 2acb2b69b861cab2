/// Why someone reports a poster.
public enum ReportReason: String, Sendable, Hashable, CaseIterable, Comparable {
    case spam, abuse, illegal, other

    /// The reason named by `text` (`spam`, `abuse`, `illegal` or `other`).
    public init(parsing text: String) throws(ModerationError) {
        guard let reason = ReportReason(rawValue: text) else { throw .unknownReason(text) }
        self = reason
    }

    public static func < (lhs: ReportReason, rhs: ReportReason) -> Bool {
        // The order they are declared in: listed that way in queues.
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!  // every case is in allCases
    }
}

/// One report of a poster by one reporter. A reporter (a client's address, or the name of a
/// command line's user) counts once per poster.
public struct Report: Sendable, Hashable {
    /// The poster reported.
    public var posterID: Int64
    /// Who reported it: the key one report per poster is counted by.
    public var reporter: String
    /// Why.
    public var reason: ReportReason
    /// What the reporter wrote; may be empty.
    public var note: String
    /// When.
    public var createdAt: Timestamp

    /// A report.
    public init(posterID: Int64, reporter: String, reason: ReportReason, note: String, createdAt: Timestamp) {
        self.posterID = posterID
        self.reporter = reporter
        self.reason = reason
        self.note = note
        self.createdAt = createdAt
    }
}

/// A reporter whose reports of a poster a moderator cleared by restoring it: their reports
/// of that poster no longer count toward hiding it.
public struct ClearedReporter: Sendable, Hashable {
    /// The poster restored.
    public var posterID: Int64
    /// The reporter.
    public var reporter: String

    /// A cleared reporter.
    public init(posterID: Int64, reporter: String) {
        self.posterID = posterID
        self.reporter = reporter
    }
}

/// A poster hidden from the public, and since when.
public struct HiddenPoster: Sendable, Hashable {
    /// The poster.
    public var posterID: Int64
    /// When it was hidden.
    public var since: Timestamp

    /// A hidden poster.
    public init(posterID: Int64, since: Timestamp) {
        self.posterID = posterID
        self.since = since
    }
}

/// What a moderation action did.
public enum ModerationAction: String, Sendable, Hashable, CaseIterable {
    /// Hidden from the public (by a moderator, or by reports reaching the threshold).
    case hide
    /// Shown again, its reports cleared.
    case restore
    /// Deleted with its images.
    case remove
}

/// One line of the audit log: who did what to which poster, when and why.
public struct AuditEntry: Sendable, Hashable {
    /// The entry's number, increasing in the order entries were written (0 before it is stored).
    public var id: Int64
    /// When.
    public var at: Timestamp
    /// Who: `token` for the admin token, a command line's user name, or `reports` when
    /// reports reached the threshold.
    public var actor: String
    /// What.
    public var action: ModerationAction
    /// Which poster.
    public var posterID: Int64
    /// Why, as the actor gave it; may be empty.
    public var reason: String

    /// An entry.
    public init(id: Int64 = 0, at: Timestamp, actor: String, action: ModerationAction, posterID: Int64, reason: String) {
        self.id = id
        self.at = at
        self.actor = actor
        self.action = action
        self.posterID = posterID
        self.reason = reason
    }
}

/// Everything a store holds about moderation, as a copy reads and writes it.
public struct ModerationRecords: Sendable, Hashable {
    /// The hidden posters.
    public var hidden: [HiddenPoster] = []
    /// Every report.
    public var reports: [Report] = []
    /// Every cleared reporter.
    public var cleared: [ClearedReporter] = []
    /// The audit log, oldest first.
    public var audit: [AuditEntry] = []

    /// Nothing.
    public init() {}
}
