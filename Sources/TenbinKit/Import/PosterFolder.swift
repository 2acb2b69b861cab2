/// A poster folder: an immediate subfolder of an import folder.
///
/// Its JPEG and PNG files (recognised by their content; any name) sorted by the bytes of
/// their names are image 1 and image 2; `post.txt`, when present, gives the contents and
/// hashtags (see ``PostText``). Hidden files and subfolders are ignored, and so is any other
/// file unless its name says it is an image (`.gif`, `.heic`, …): such a file, an unreadable
/// file, or a number of images other than two makes the folder fail. A folder with no image
/// file and no `post.txt` is not a poster folder and is passed over.
enum PosterFolder {
    /// File name endings that promise an image; such a file that is not JPEG or PNG is refused.
    static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "jfif", "png", "gif", "webp", "heic", "heif", "avif", "bmp", "tif", "tiff", "jp2",
    ]

    /// The name of the text file.
    static let textName = "post.txt"

    /// The largest `post.txt` read.
    static let maximumTextBytes = 1 << 20

    /// Bytes read from each file to recognise it (the sniffer's text test looks this far).
    static let sniffBytes = 512

    /// Reads the folder at `path`, reported as `source`.
    static func read(_ path: String, source: String) -> ImportEntry {
        let entries: [Directory.Entry]
        switch Directory.entries(path) {
        case .success(let list): entries = list
        case .failure(let error): return .failed(source: source, reason: "cannot be read: \(SystemError.message(for: error.code))")
        }
        var images: [String] = []
        var problems: [String] = []
        var text: PostText?
        for entry in entries where !entry.isHidden {
            if !entry.isUTF8 {
                if entry.kind != .folder { problems.append("\(entry.name) \(notUTF8)") }
                continue
            }
            let file = "\(path)/\(entry.name)"
            if entry.name == textName {
                switch readText(file, kind: entry.kind) {
                case .success(let parsed): text = parsed
                case .failure(let problem): problems.append("\(textName) \(problem.reason)")
                }
                continue
            }
            switch entry.kind {
            case .folder, .other:
                continue
            case .unreadable(let code):
                problems.append("\(entry.name) cannot be read: \(SystemError.message(for: code))")
            case .file:
                switch Directory.head(of: file, count: sniffBytes) {
                case .failure(let error):
                    problems.append("\(entry.name) cannot be read: \(SystemError.message(for: error.code))")
                case .success(let head):
                    let kind = ImageSniffer.kind(of: head)
                    if case .supported = kind {
                        images.append(entry.name)
                    } else if let refusal = ImageSniffer.refusal(for: kind), looksLikeImage(entry.name) {
                        problems.append("\(entry.name) \(refusal)")
                    }
                }
            }
        }
        if images.isEmpty && problems.isEmpty && text == nil { return .ignored }
        if !problems.isEmpty { return .failed(source: source, reason: problems.joined(separator: "; ")) }
        guard images.count == 2 else {
            let names = images.joined(separator: ", ")
            let listed = images.isEmpty ? "no image (JPEG, PNG, WebP, HEIC or AVIF)" : "\(Plural.count(images.count, "image")) (\(names))"
            return .failed(source: source, reason: "holds \(listed); a poster needs exactly 2")
        }
        return .poster(
            ImportCandidate(
                source: source, images: images.map { ImportImage(path: "\(path)/\($0)", label: $0) },
                contents: text?.contents ?? "", hashtags: text?.hashtags ?? []))
    }

    /// Why a file or folder whose name is not UTF-8 is not imported: tenbin's names, sources
    /// and reports are text, and the name could not be shown or opened as it is.
    static let notUTF8 = "has a name that is not UTF-8 text (another encoding?); rename it to UTF-8, for example with convmv"

    static func looksLikeImage(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return imageExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    private static func readText(_ file: String, kind: Directory.Entry.Kind) -> Result<PostText, PostText.Problem> {
        switch kind {
        case .file: break
        case .unreadable(let code): return .failure(PostText.Problem(reason: "cannot be read: \(SystemError.message(for: code))"))
        case .folder, .other: return .failure(PostText.Problem(reason: "is not a file"))
        }
        switch FileBytes.read(file, limit: maximumTextBytes) {
        case .success(let bytes): return Result { () throws(PostText.Problem) in try PostText.parse(bytes) }
        case .failure(let error) where error.code == 27:  // EFBIG
            return .failure(PostText.Problem(reason: "is larger than \(ByteCount(maximumTextBytes))"))
        case .failure(let error): return .failure(PostText.Problem(reason: "cannot be read: \(SystemError.message(for: error.code))"))
        }
    }
}

/// Reads the poster folders of an import folder, in the order of their names.
struct FolderReader: ImportReader {
    /// The import folder as given (without trailing slashes), prefixed to every source.
    let root: String
    /// The subfolders, sorted by the bytes of their names; hidden ones are left out.
    let folders: [Directory.Entry]
    private var index = 0

    init(root given: String) throws {
        var root = given
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        self.root = root
        let entries: [Directory.Entry]
        switch Directory.entries(root) {
        case .success(let list): entries = list
        case .failure(let error): throw ImportError.unreadable(given, code: error.code)
        }
        folders = entries.filter { !$0.isHidden && $0.kind == .folder }
        // An empty folder is simply nothing to import; one holding files but no subfolders was
        // most likely meant as a poster folder itself.
        if folders.isEmpty && entries.contains(where: { !$0.isHidden }) {
            throw ImportError(path: given, reason: Self.whyNoPosterFolders(root), kind: .invalidInput)
        }
    }

    /// Why a folder with files but no subfolders yields no poster.
    private static func whyNoPosterFolders(_ root: String) -> String {
        let advice = "import the folder that contains it, or put each pair of images in a subfolder"
        switch PosterFolder.read(root, source: root) {
        case .poster:
            return "holds no poster folders; it looks like a single poster folder with 2 images (\(advice))"
        case .failed(_, let reason):
            return "holds no poster folders; it looks like a single poster folder, which \(reason)"
        case .ignored:
            return "holds no poster folders (subfolders holding two images each) and no images"
        }
    }

    /// The error for an import whose subfolders were all passed over: nothing could be a poster.
    func nothingFound() -> ImportError {
        let subfolders = folders.count == 1 ? "its subfolder holds" : "none of its \(folders.count) subfolders holds"
        return ImportError(path: root, reason: "holds no poster folders: \(subfolders) an image or a post.txt", kind: .invalidInput)
    }

    var total: Int { folders.count }

    var reusesImages: Bool { false }

    mutating func next() -> ImportEntry? {
        guard index < folders.count else { return nil }
        defer { index += 1 }
        let folder = folders[index]
        let path = root == "/" ? "/\(folder.name)" : "\(root)/\(folder.name)"
        if !folder.isUTF8 { return .failed(source: path, reason: PosterFolder.notUTF8) }
        return PosterFolder.read(path, source: path)
    }
}
