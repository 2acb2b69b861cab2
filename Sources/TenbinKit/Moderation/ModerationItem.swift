/// A poster as a moderator sees it: hidden or not, and its reports.
public struct ModerationItem: Sendable, Hashable {
    /// The poster.
    public var poster: Poster
    /// When it was hidden; nil while the public sees it.
    public var hiddenSince: Timestamp?
    /// Its reports, oldest first.
    public var reports: [Report]
    /// How many of its reporters count toward hiding it (those a restore cleared do not).
    public var counted: Int

    /// An item.
    public init(poster: Poster, hiddenSince: Timestamp?, reports: [Report], counted: Int) {
        self.poster = poster
        self.hiddenSince = hiddenSince
        self.reports = reports
        self.counted = counted
    }

    /// Whether the public cannot see it.
    public var isHidden: Bool { hiddenSince != nil }

    /// How many reports give each reason, in ``ReportReason``'s order, reasons without reports left out.
    public var reasons: [(reason: ReportReason, count: Int)] {
        ReportReason.allCases.compactMap { reason in
            let count = reports.count { $0.reason == reason }
            return count > 0 ? (reason, count) : nil
        }
    }

    /// The latest thing that happened to it: its newest report or its hiding.
    public var latest: Timestamp? {
        ([hiddenSince].compactMap { $0 } + reports.map(\.createdAt)).max()
    }
}

/// What a report did.
public struct ReportOutcome: Sendable, Hashable {
    /// The poster reported.
    public var posterID: Int64
    /// How many distinct reporters now count toward hiding it.
    public var counted: Int
    /// Whether this report hid it (the count reached the threshold).
    public var hidNow: Bool
}

/// How ``Board/remove(id:actor:reason:options:)`` removes a poster.
public struct RemoveOptions: Sendable, Hashable {
    /// Also put both images on the blocklist, so the same pictures are refused when posted
    /// again (issue 28 item 8). The blocklist is not part of this build: asking for it is
    /// refused before anything is removed.
    public var blockImages: Bool

    /// Options; nothing blocked by default.
    public init(blockImages: Bool = false) {
        self.blockImages = blockImages
    }
}
