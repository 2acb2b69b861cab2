/// A moderation request a board refuses.
public enum ModerationError: KindedError, Sendable, Equatable {
    /// A report's reason is not one of ``ReportReason``.
    case unknownReason(String)
    /// A report's note is longer than ``Board/maximumReportNote`` characters.
    case noteTooLong(Int)
    /// This reporter has reported this poster already.
    case alreadyReported(Int64)
    /// A moderator's reason is longer than ``Board/maximumModerationReason`` characters.
    case reasonTooLong(Int)
    /// An actor name that is empty or too long.
    case invalidActor(String)
    /// A report threshold below 1.
    case invalidThreshold(Int)
    /// No blocklist entry has this id.
    case noSuchBlockedImage(Int64)

    /// What kind of failure this is.
    public var kind: ErrorKind {
        switch self {
        case .unknownReason, .noteTooLong, .reasonTooLong, .invalidActor, .invalidThreshold: .invalidInput
        case .alreadyReported: .conflict
        case .noSuchBlockedImage: .notFound
        }
    }

    /// One sentence naming the thing and the reason.
    public var description: String {
        switch self {
        case .unknownReason(let text):
            "'\(SafeText.excerpt(text, scalars: 40))' is not a report reason; use one of "
                + ReportReason.allCases.map(\.rawValue).joined(separator: ", ")
        case .noteTooLong(let count):
            "a report's note may have at most \(Board.maximumReportNote) characters; this one has \(count)"
        case .alreadyReported(let id): "poster #\(id): you have reported this poster already"
        case .reasonTooLong(let count):
            "a moderation reason may have at most \(Board.maximumModerationReason) characters; this one has \(count)"
        case .invalidActor(let name): "'\(SafeText.excerpt(name, scalars: 40))' cannot name who acts: give 1 to 64 characters"
        case .invalidThreshold(let value): "the report threshold must be at least 1, not \(value)"
        case .noSuchBlockedImage(let id): "blocklist entry #\(id): no such entry"
        }
    }
}
