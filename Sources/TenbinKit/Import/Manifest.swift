/// A JSON Lines manifest: one poster per line,
/// `{"image1": "path", "image2": "path", "contents": "…", "hashtags": ["…"]}`.
///
/// `image1` and `image2` are required; `contents` (default empty) and `hashtags` (default
/// none) may be left out or null; other keys are ignored. A relative path is relative to the
/// manifest's folder. Blank lines are skipped; a line that is not such an object, or is longer
/// than 16 MiB, or whose text is over ``PosterTextLimits``, fails on its own and the rest goes
/// on. The file may be UTF-8 with a byte-order mark and CRLF ends.
enum Manifest {
    /// Why one line cannot be a poster.
    struct Problem: KindedError, Equatable {
        let reason: String

        var kind: ErrorKind { .invalidInput }
        var description: String { reason }
    }

    /// Reads one line into a poster candidate; relative paths are resolved against `folder`.
    static func candidate(_ line: UnsafeBufferPointer<UInt8>, source: String, folder: String) throws(Problem) -> ImportCandidate {
        let value: JSONValue
        do {
            value = try JSONValue.parse(line)
        } catch {
            throw Problem(reason: "is not valid JSON: \(error)")
        }
        guard case .object(let fields) = value else { throw Problem(reason: "is not a JSON object") }
        func path(_ key: String) throws(Problem) -> ImportImage {
            guard let field = fields[key] else { throw Problem(reason: "has no \"\(key)\"") }
            guard case .string(let written) = field, !written.isEmpty else {
                throw Problem(reason: "\"\(key)\" must be a non-empty string (a file path)")
            }
            return ImportImage(path: resolve(written, in: folder), label: written)
        }
        let images = [try path("image1"), try path("image2")]
        var contents = ""
        switch fields["contents"] {
        case nil, .null?: break
        case .string(let text)?: contents = text
        default: throw Problem(reason: "\"contents\" must be a string")
        }
        var hashtags: [String] = []
        switch fields["hashtags"] {
        case nil, .null?: break
        case .array(let items)?:
            for item in items {
                guard case .string(let tag) = item else { throw Problem(reason: "\"hashtags\" must be an array of strings") }
                hashtags.append(tag)
            }
        default: throw Problem(reason: "\"hashtags\" must be an array of strings")
        }
        return ImportCandidate(source: source, images: images, contents: contents, hashtags: hashtags)
    }

    /// The entry for one line that is not blank: a poster, or the reason it cannot be one.
    static func entry(_ line: UnsafeBufferPointer<UInt8>, source: String, folder: String) -> ImportEntry {
        do {
            return .poster(try candidate(line, source: source, folder: folder))
        } catch {
            return .failed(source: source, reason: "line \(error.reason)")
        }
    }

    /// Why a line longer than `maximum` bytes is not read (it is skipped, and the rest goes on).
    static func tooLong(_ maximum: Int) -> String {
        "line is longer than \(ByteCount(maximum))"
    }

    /// `path` itself when absolute, else `folder/path`.
    static func resolve(_ path: String, in folder: String) -> String {
        path.hasPrefix("/") || folder.isEmpty ? path : "\(folder)/\(path)"
    }

    /// The folder part of `path` ("" for a bare file name, so paths stay relative to it).
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Whether a line holds only white space.
    static func isBlank(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }
}

/// Reads a manifest's lines in order, through a fixed buffer.
struct ManifestReader: ImportReader {
    let path: String
    let folder: String
    let total: Int
    private let lines: LineReader
    private var lineNumber = 0

    init(path: String) throws {
        self.path = path
        self.folder = Manifest.folder(of: path)
        self.total = try Self.countPosters(path)
        self.lines = try Self.open(path)
    }

    var reusesImages: Bool { true }

    mutating func next() throws -> ImportEntry? {
        while true {
            lineNumber += 1
            let source = "\(path):\(lineNumber)"
            let folder = self.folder
            let entry: ImportEntry??
            do {
                entry = try lines.next(
                    { line -> ImportEntry? in Manifest.isBlank(line) ? nil : Manifest.entry(line, source: source, folder: folder) },
                    tooLong: { .failed(source: source, reason: Manifest.tooLong(lines.maximumLine)) })
            } catch let error as SystemErrno {
                throw Self.failure(path, error)
            }
            guard let entry else { return nil }  // the end of the file
            if let entry { return entry }  // else a blank line: read on
        }
    }

    /// Counts the lines that are not blank, the same way `next()` reads them.
    private static func countPosters(_ path: String) throws -> Int {
        let reader = try open(path)
        var count = 0
        do {
            while let blank = try reader.next(Manifest.isBlank, tooLong: { false }) {
                if !blank { count += 1 }
            }
        } catch let error as SystemErrno {
            throw failure(path, error)
        }
        return count
    }

    private static func open(_ path: String) throws -> LineReader {
        do {
            return try LineReader(path: path)
        } catch {
            throw failure(path, error)
        }
    }

    private static func failure(_ path: String, _ error: SystemErrno) -> ImportError {
        ImportError.unreadable(path, code: error.code)
    }
}
