/// Why an uploaded image was refused, naming the file and the stage that refused it.
public struct ImageError: KindedError, Sendable {
    /// Where in the pipeline the image failed.
    public enum Stage: String, Sendable {
        /// Reading the file from disk.
        case read
        /// Recognising the format from the first bytes.
        case sniff
        /// Reading the header.
        case header
        /// Checking the header against the limits.
        case limits
        /// Decoding pixels.
        case decode
        /// Encoding the stored image.
        case encode
    }

    /// The file (or other source) the image came from.
    public let source: String
    /// Where the image failed.
    public let stage: Stage
    /// The format, once it is known.
    public let format: UploadFormat?
    /// What is wrong, as a phrase a user can act on.
    public let reason: String
    /// What kind of failure this is: by default, over the limits for `limits`, internal for
    /// `encode`, and invalid input for the rest.
    public let kind: ErrorKind

    /// Creates an image error; `kind` defaults to the stage's usual kind.
    public init(source: String, stage: Stage, format: UploadFormat? = nil, reason: String, kind: ErrorKind? = nil) {
        self.source = source
        self.stage = stage
        self.format = format
        self.reason = reason
        self.kind = kind ?? Self.usualKind(of: stage)
    }

    /// The same error about another source (a path instead of a label).
    package func about(_ source: String) -> ImageError {
        ImageError(source: source, stage: stage, format: format, reason: reason, kind: kind)
    }

    private static func usualKind(of stage: Stage) -> ErrorKind {
        switch stage {
        case .limits: .limitExceeded
        case .encode: .internal
        case .read, .sniff, .header, .decode: .invalidInput
        }
    }

    public var description: String {
        switch stage {
        case .read, .sniff, .limits: "\(source): \(reason)"
        default: "\(source): \(format.map { "\($0.name) " } ?? "")\(stage.rawValue) failed: \(reason)"
        }
    }
}
