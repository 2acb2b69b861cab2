/// A store that cannot be used as asked, in words for a user.
public struct StoreError: KindedError, Sendable, Equatable {
    /// What went wrong.
    public enum Reason: Sendable, Equatable {
        /// Nothing is there (a store that was never written).
        case missing
        /// Something is there, but it is not a tenbin store; the text says what it is.
        case notAStore(String)
        /// The store cannot be written (a read-only file or mount, or a read-only database).
        case readOnly
        /// The store is in use by others for too long, or the database is unreachable.
        case busy
        /// The disk (or the database's space) is full.
        case full
        /// The store's data is damaged; the text says where.
        case damaged(String)
        /// The store was made by a newer tenbin (its schema version, and the newest known).
        case newerSchema(Int, known: Int)
        /// The database has no tenbin schema at all, and the command does not create one.
        case noSchema
        /// The store's schema is older than this tenbin's (its version, and the newest known),
        /// and the command does not upgrade it.
        case olderSchema(Int, known: Int)
        /// The database is unreachable or refused the request; the text says why.
        case unavailable(String)
        /// The store was closed (``StoreBackend/close()``) and is used after all: a bug of the
        /// front end's lifecycle, reported instead of touching freed connections.
        case closed
    }

    /// Where the store is (a folder, a database name; never a password).
    public var location: String
    /// Why it cannot be used.
    public var reason: Reason

    /// An error about the store at `location`.
    public init(_ reason: Reason, at location: String) {
        self.reason = reason
        self.location = location
    }

    /// The kind front ends map to an exit status or an HTTP status.
    public var kind: ErrorKind {
        switch reason {
        case .missing, .noSchema: .notFound
        case .notAStore: .invalidInput
        case .damaged: .internal
        case .readOnly, .busy, .full, .unavailable, .newerSchema, .olderSchema, .closed: .unavailable
        }
    }

    /// One sentence naming the store and the reason.
    public var description: String {
        switch reason {
        case .missing: "no store at \(location)"
        case .notAStore(let what): "\(location): not a tenbin store (\(what))"
        case .readOnly: "\(location): the store is read-only"
        case .busy: "\(location): the store was busy for too long; try again"
        case .full: "\(location): the disk is full"
        case .damaged(let detail): "\(location): the store is damaged (\(detail))"
        case .newerSchema(let version, let known):
            "\(location): the store has schema version \(version), newer than this tenbin knows (\(known)); upgrade tenbin"
        case .unavailable(let detail): "\(location): the database is unavailable (\(detail))"
        case .closed: "\(location): the store is closed"
        case .noSchema: "no tenbin schema in \(location); run tenbin migrate"
        case .olderSchema(let version, let known):
            "\(location): the store has schema version \(version), older than this tenbin's (\(known)); run tenbin migrate"
        }
    }
}
