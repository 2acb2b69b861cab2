/// Why a post was refused for what its images are: a blocked picture, or the operator's scan
/// (``ImageScanner``) saying no or failing. Nothing of such a post is stored.
public enum ImageRefusal: KindedError, Sendable, Equatable {
    /// An image is a blocked picture: its digest is the entry's, or its perceptual hash is
    /// within the blocklist's distance of the entry's.
    case blocked(image: String, entry: Int64)
    /// The scan program refused the post (it exited 1), with the first line it printed.
    case refusedByScan(reason: String)
    /// The scan program did not give an answer: it ran too long, was killed, could not start,
    /// or exited with a status other than 0 or 1.
    case scanFailed(String)

    /// A blocked picture or a refusal is about the request; a scan that failed is the
    /// server's own trouble.
    public var kind: ErrorKind {
        switch self {
        case .blocked, .refusedByScan: .invalidInput
        case .scanFailed: .unavailable
        }
    }

    /// One sentence naming the image or the scan and the reason.
    public var description: String {
        switch self {
        case .blocked(let image, let entry):
            "image '\(image)' is blocked: it matches entry #\(entry) of the board's image blocklist"
        case .refusedByScan(let reason): "the images were refused by the board's image scan: \(reason)"
        case .scanFailed(let reason): "the images could not be scanned, so the post was not stored: \(reason)"
        }
    }
}
