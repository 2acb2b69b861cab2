/// Why a new poster was refused, as `tenbin_posts_refused_total{reason}` counts it: the
/// reasons an operator acts on differently (clients too fast, the server too slow, bad files,
/// a limit set too low, a store in trouble).
enum PostRefusal: String, Sendable, CaseIterable {
    /// Over the client's post rate (429).
    case rateLimited = "rate_limited"
    /// As many posts being re-encoded as the server takes at once, or its executor's queue
    /// full (503 from the server itself).
    case busy
    /// The body, a form part or an image over its limit: bytes, edge or megapixels (413).
    case tooLarge = "too_large"
    /// An image part that is not an image tenbin reads, or one it cannot decode (422).
    case invalidImage = "invalid_image"
    /// A malformed form, a body of another type, or text over a poster's limits (400, 415, 422).
    case invalidForm = "invalid_form"
    /// An image on the blocklist, or images the operator's scan refused (422 `blocked`).
    case blocked
    /// The operator's scan gave no answer: it timed out, crashed or exited otherwise (503).
    case scanFailed = "scan_failed"
    /// Another site's page (403).
    case forbidden
    /// The store or the blob folder could not take it (503 with a cause).
    case unavailable
    /// A broken invariant (500).
    case failed

    /// The reason of an error a post was answered with: the one it names, else its status's.
    init(_ error: APIError) {
        if let named = error.postRefusal {
            self = named
            return
        }
        switch error.status {
        case 429: self = .rateLimited
        case 413: self = .tooLarge
        // The store's failures carry what failed for the log; the server's own refusals
        // (too many posts at once, a full queue) do not.
        case 503: self = error.cause == nil ? .busy : .unavailable
        case 401, 403: self = .forbidden
        case 400...499: self = .invalidForm
        default: self = .failed
        }
    }
}
