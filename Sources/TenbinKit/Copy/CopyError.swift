/// A copy between two stores that cannot be made, or that came out different.
public enum CopyError: KindedError, Sendable, Equatable {
    /// The target already holds posters or blob rows (its location, and how many posters).
    case targetNotEmpty(String, posters: Int)
    /// The source and the target are the same store.
    case sameStore(String)
    /// A source blob row whose file is missing or does not hash to its name.
    case sourceBlob(Digest, String)
    /// The target, once copied, is not the same board as the source; the text says where.
    case differs(String)
    /// The target failed `check` after the copy; the problems found.
    case targetUnsound([String])

    /// What kind of failure this is.
    public var kind: ErrorKind {
        switch self {
        case .targetNotEmpty, .sameStore: .conflict
        case .sourceBlob, .differs, .targetUnsound: .internal
        }
    }

    /// One sentence naming the store and the reason.
    public var description: String {
        switch self {
        case .targetNotEmpty(let location, let posters):
            "\(location) is not empty (it holds \(posters > 0 ? Plural.count(posters, "poster") : "blob rows")); a copy goes only into an empty store"
        case .sameStore(let location): "\(location) is both the source and the target of the copy"
        case .sourceBlob(let digest, let problem): "the source's blob \(digest.hex) \(problem); nothing after it was copied"
        case .differs(let detail): "the copy differs from the source: \(detail)"
        case .targetUnsound(let problems):
            "the target failed its check after the copy: \(problems.prefix(3).joined(separator: "; "))"
                + (problems.count > 3 ? " (and \(problems.count - 3) more)" : "")
        }
    }
}
