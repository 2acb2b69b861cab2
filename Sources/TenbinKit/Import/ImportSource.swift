/// Where an import reads its posters from.
public enum ImportSource: Sendable, Hashable {
    /// A folder whose immediate subfolders are poster folders (see ``PosterFolder``).
    case folders(String)
    /// A JSON Lines manifest, one poster per line (see ``Manifest``).
    case manifest(String)

    /// A folder at `path` is read as poster folders; a file is read as a manifest when it
    /// looks like one (see ``looksLikeManifest(_:)``). Anything else is refused with an
    /// ``ImportError`` of kind `invalidInput` before anything is read or written.
    public static func at(_ path: String) throws -> ImportSource {
        switch Directory.kind(of: path) {
        case .folder: return .folders(path)
        case .file:
            guard try looksLikeManifest(path) else {
                throw ImportError(
                    path: path, reason: "not a manifest (expected a folder of poster folders or a .jsonl file)", isNotASource: true)
            }
            return .manifest(path)
        case .other:
            throw ImportError(path: path, reason: "neither a folder of poster folders nor a manifest file", isNotASource: true)
        case .unreadable(let code): throw ImportError.unreadable(path, code: code)
        }
    }

    /// Bytes read from a file to decide whether it is a manifest.
    static let manifestSniffBytes = 4096

    /// Whether the file at `path` is a manifest: its name ends in `.jsonl` or `.ndjson` (any
    /// case), or its first character that is not white space (after an optional byte-order
    /// mark) opens a JSON object. A photo, a README or a program is not read line by line.
    static func looksLikeManifest(_ path: String) throws -> Bool {
        let name = path.lowercased()
        if name.hasSuffix(".jsonl") || name.hasSuffix(".ndjson") { return true }
        switch Directory.head(of: path, count: manifestSniffBytes) {
        case .failure(let error): throw ImportError.unreadable(path, code: error.code)
        case .success(let head):
            var bytes = head[...]
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
            let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
            return first == UInt8(ascii: "{")
        }
    }

    /// The folder or file, as given.
    public var path: String {
        switch self {
        case .folders(let path), .manifest(let path): path
        }
    }

    func makeReader() throws -> any ImportReader {
        switch self {
        case .folders(let path): try FolderReader(root: path)
        case .manifest(let path): try ManifestReader(path: path)
        }
    }
}

/// A problem with an import's source as a whole (not with one poster): the import cannot start.
public struct ImportError: KindedError, Sendable, Equatable {
    /// The folder or manifest.
    public let path: String
    /// What is wrong with it, as a phrase following its path.
    public let reason: String
    /// `notFound` when the source does not exist, else usually `invalidInput`.
    public let kind: ErrorKind
    /// True when the path names something that is not an import source at all (a photo or a
    /// README given as a manifest): a mistake in how the import was asked for.
    public let isNotASource: Bool

    /// Creates an import error.
    public init(path: String, reason: String, kind: ErrorKind = .invalidInput, isNotASource: Bool = false) {
        self.path = path
        self.reason = reason
        self.kind = kind
        self.isNotASource = isNotASource
    }

    /// The source cannot be read, for the system's reason `code`.
    static func unreadable(_ path: String, code: Int32) -> ImportError {
        let kind = SystemError.kind(for: code)
        return ImportError(
            path: path, reason: "cannot be read: \(SystemError.message(for: code))", kind: kind == .internal ? .invalidInput : kind)
    }

    /// `PATH: reason`.
    public var description: String { "\(path): \(reason)" }
}

/// One image of a poster to import.
struct ImportImage: Sendable, Hashable {
    /// The file to read.
    let path: String
    /// How errors name it: the file name in a poster folder, the path as written in a manifest.
    let label: String
}

/// One poster read from a source, before its images are prepared.
struct ImportCandidate: Sendable {
    /// How the report names it: `DIR/name` or `MANIFEST:LINE`.
    let source: String
    /// The first and second image.
    let images: [ImportImage]
    let contents: String
    /// As written; normalised when stored.
    let hashtags: [String]
}

/// What a source yields for each folder or line.
enum ImportEntry: Sendable {
    case poster(ImportCandidate)
    /// A folder or line that cannot be a poster, with the reason.
    case failed(source: String, reason: String)
    /// A folder that holds nothing to import: counted for progress, not reported.
    case ignored
}

/// Reads the entries of one source, in order.
protocol ImportReader {
    /// How many entries `next()` returns in all.
    var total: Int { get }
    /// Whether one image path may appear in many entries, so prepared images are worth keeping.
    var reusesImages: Bool { get }
    /// The next entry, or nil at the end. Throws only when the source itself fails.
    mutating func next() throws -> ImportEntry?
}
