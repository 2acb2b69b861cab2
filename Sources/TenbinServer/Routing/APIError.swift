#if canImport(TenbinKit)
    import TenbinKit
#endif

/// An error answered as `{"error": {"kind": …, "message": …}}` with its HTTP status.
///
/// The message names the problem for the client; it never holds SQL, file paths or traces.
struct APIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status.
    var status: Int
    /// A stable word a client can switch on: one of ``ErrorKind``'s, or one of the server's
    /// own (`unauthorized`, `forbidden`, `method_not_allowed`, `unsupported_media_type`,
    /// `blocked`).
    var kind: String
    /// One sentence naming the problem.
    var message: String
    /// Extra header fields (`Retry-After`, `Allow`, `WWW-Authenticate`).
    var headers: [Header] = []
    /// For the operator only: what really failed behind a 500 or 503 whose message is a
    /// fixed sentence. The request log shows it; the client never sees it.
    var cause: String? = nil
    /// For `tenbin_posts_refused_total`: why a post was refused, when the status alone does
    /// not say (an image that is not one is a 422, as text over its limits is).
    var postRefusal: PostRefusal? = nil

    /// A header field an error answer carries.
    struct Header: Sendable, Equatable {
        var name: String
        var value: String
    }

    var description: String { "\(status) \(kind): \(message)" }

    static func badRequest(_ message: String) -> APIError { APIError(status: 400, kind: "invalid_input", message: message) }
    static func unprocessable(_ message: String) -> APIError { APIError(status: 422, kind: "invalid_input", message: message) }
    static func notFound(_ message: String) -> APIError { APIError(status: 404, kind: "not_found", message: message) }
    static func tooLarge(_ message: String) -> APIError { APIError(status: 413, kind: "limit_exceeded", message: message) }
    static func forbidden(_ message: String) -> APIError { APIError(status: 403, kind: "forbidden", message: message) }
    static func unavailable(_ message: String, retryAfter: Int = 1) -> APIError {
        APIError(status: 503, kind: "unavailable", message: message, headers: [Header(name: "Retry-After", value: String(retryAfter))])
    }
    static func unsupportedMediaType(_ message: String) -> APIError {
        APIError(status: 415, kind: "unsupported_media_type", message: message)
    }
    static func methodNotAllowed(_ method: String, allowed: [String]) -> APIError {
        APIError(
            status: 405, kind: "method_not_allowed",
            message:
                "\(method) is not allowed here; use \(allowed.dropLast().joined(separator: ", "))\(allowed.count > 1 ? " or " : "")\(allowed.last ?? "")",
            headers: [Header(name: "Allow", value: allowed.joined(separator: ", "))])
    }
    static func rateLimited(_ what: String, retryAfter: Int) -> APIError {
        APIError(
            status: 429, kind: "limit_exceeded", message: "too many \(what) from this address; try again in \(retryAfter) s",
            headers: [Header(name: "Retry-After", value: String(retryAfter))])
    }
}

#if canImport(TenbinKit)
    extension APIError {
        /// The answer for an error a board (or anything under it) threw.
        ///
        /// Only the kinds that are about the request carry the error's own message (which
        /// names the poster, image or limit); for `unavailable` and `internal` failures the
        /// message could name files or database details, so a fixed sentence is sent instead.
        init(_ error: any Error, invalidStatus: Int = 422) {
            if let error = error as? APIError {
                self = error
                return
            }
            if let refusal = error as? ImageRefusal {
                self = APIError(refusal)
                return
            }
            if case BoardError.cursorExpired = error {
                // A kind of its own, so a client knows to start its walk again (410: the walk
                // the cursor continues is gone for good).
                self = APIError(status: 410, kind: "cursor_expired", message: "\(error)")
                return
            }
            let kind = ErrorKind.of(error)
            let message = "\(error)"
            switch kind {
            case .notFound: self = APIError(status: 404, kind: kind.rawValue, message: message)
            case .invalidInput: self = APIError(status: invalidStatus, kind: kind.rawValue, message: message)
            case .conflict: self = APIError(status: 409, kind: kind.rawValue, message: message)
            case .limitExceeded: self = APIError(status: 413, kind: kind.rawValue, message: message)
            case .unavailable:
                self = APIError(
                    status: 503, kind: kind.rawValue, message: "the store cannot answer now; try again shortly",
                    headers: [Header(name: "Retry-After", value: "1")], cause: message)
            case .internal:
                self = APIError(status: 500, kind: kind.rawValue, message: "the server failed to answer this request", cause: message)
            }
        }

        /// A post refused for its images: 422 `blocked` for a blocked picture or the scan's
        /// refusal (its reason included: the operator's program wrote it for the client), 503
        /// for a scan that gave no answer (the message says so and names no command or path).
        init(_ refusal: ImageRefusal) {
            switch refusal {
            case .blocked, .refusedByScan:
                self = APIError(status: 422, kind: "blocked", message: "\(refusal)", postRefusal: .blocked)
            case .scanFailed:
                self = APIError(
                    status: 503, kind: "unavailable", message: "\(refusal)", headers: [Header(name: "Retry-After", value: "5")],
                    cause: "\(refusal)", postRefusal: .scanFailed)
            }
        }
    }
#endif
