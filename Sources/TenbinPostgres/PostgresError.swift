import CLibPQ
import TenbinKit

/// A failure reported by PostgreSQL or libpq: what the server said, the SQLSTATE code, and
/// the database it was about (described without a password). Never holds SQL text.
public struct PostgresError: KindedError, Sendable {
    /// What a front end should make of it (see ``kind(sqlState:)``).
    public let kind: ErrorKind
    /// The five-character SQLSTATE code, when the server sent one.
    public let sqlState: String?
    /// The server's or libpq's message.
    public let message: String
    /// The database, as ``ConnectionTarget/description`` (no password); empty when the
    /// connection string itself could not be read.
    public let target: String

    /// An error with the given parts.
    package init(kind: ErrorKind, sqlState: String?, message: String, target: String) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.target = target
    }

    /// Whether the connection itself failed (the server is down, restarting or unreachable):
    /// the connection must be dropped, and the same request may succeed later.
    package var isConnectionFailure: Bool {
        sqlState == nil || sqlState!.hasPrefix("08") || sqlState!.hasPrefix("57P")
    }

    /// Whether the transaction lost a deadlock or serialization race and may simply be retried.
    package var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    public var description: String {
        (target.isEmpty ? message : "database \(target): \(message)")
            + (kind == .unavailable ? " (the database is unavailable; try again)" : "")
    }

    /// The kind for a SQLSTATE code: connection trouble, shutdown, out of resources and
    /// read-only transactions are `unavailable` (try again later); constraint violations and
    /// lost races are `conflict`; bad data is `invalidInput`.
    static func kind(sqlState: String?) -> ErrorKind {
        guard let state = sqlState else { return .unavailable }
        switch state.prefix(2) {
        case "08", "53", "28", "3D", "57": return .unavailable
        case "23", "40": return .conflict
        case "22": return .invalidInput
        case "54": return .limitExceeded
        default: return state == "25006" ? .unavailable : .internal
        }
    }

    /// The error a failed result reports.
    init(result: OpaquePointer?, connection: OpaquePointer, target: ConnectionTarget) {
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        let primary = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "M"))) }.map { String(cString: $0) }
        let connectionMessage = String(cString: PQerrorMessage(connection))
        let message = (primary ?? connectionMessage).trimmingCharacters(in: " \n")
        let lost = PQstatus(connection) == CONNECTION_BAD
        self.init(
            kind: lost ? .unavailable : Self.kind(sqlState: state), sqlState: lost ? (state ?? "08006") : state,
            message: message.isEmpty ? "the connection failed" : ConnectionTarget.scrub(message, of: target.conninfo),
            target: target.description)
    }

    /// The error every backend reports for the same trouble (``StoreError``) when there is one:
    /// an unreachable or restarting server, a read-only database, a full disk. Anything else
    /// stays a `PostgresError`.
    func storeError(at location: String) -> any Error {
        switch sqlState {
        case "25006": StoreError(.readOnly, at: location)
        case "53100": StoreError(.full, at: location)
        case let state where kind == .unavailable && state?.hasPrefix("28") != true && state != "3D000":
            StoreError(.unavailable(message), at: location)
        default: self
        }
    }
}
