/// What kind of failure an error is, for a front end to act on: a command line maps kinds to
/// exit statuses, a server to HTTP statuses.
public enum ErrorKind: String, Sendable, Hashable, CaseIterable {
    /// The thing asked for does not exist (a poster id, a blob, a store).
    case notFound = "not_found"
    /// The request itself is wrong: a bad image, a bad count, a malformed value.
    case invalidInput = "invalid_input"
    /// The request clashes with the current state (a changed file, a concurrent edit).
    case conflict
    /// The store cannot do this now: read-only, unreachable, busy or out of space.
    case unavailable
    /// The request is over a limit (image size, pixels, upload size, rate).
    case limitExceeded = "limit_exceeded"
    /// Anything else: a broken invariant or a damaged store.
    case `internal`
}

/// An error that says what kind of failure it is. Its `description` is a message for a user:
/// it names the thing and the reason, and never holds SQL, internal paths or advice for one
/// particular front end (the front end adds its own hints).
public protocol KindedError: Error, CustomStringConvertible {
    /// What kind of failure this is.
    var kind: ErrorKind { get }
}

extension ErrorKind {
    /// The kind of any error: its own when it says, else `internal`.
    public static func of(_ error: any Error) -> ErrorKind {
        (error as? any KindedError)?.kind ?? .internal
    }
}
