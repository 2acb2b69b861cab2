import Glibc

/// Listing a folder with plain system calls (no Foundation on the import path).
enum Directory {
    /// One name in a folder and what it is, symbolic links followed.
    struct Entry: Sendable, Hashable {
        enum Kind: Sendable, Hashable {
            case file
            case folder
            /// A device, pipe or socket: never read.
            case other
            /// `stat` failed (a dangling link, no permission) with this errno.
            case unreadable(Int32)
        }

        /// The name; a name that is not UTF-8 holds U+FFFD where its bad bytes were.
        let name: String
        let kind: Kind
        /// Whether the name is UTF-8 text (else `name` cannot open it, and a poster's source
        /// could not name it truthfully).
        var isUTF8 = true

        /// Names starting with a dot are hidden.
        var isHidden: Bool { name.hasPrefix(".") }
    }

    /// The entries of `path` (without `.` and `..`), sorted by the bytes of their names.
    static func entries(_ path: String) -> Result<[Entry], SystemErrno> {
        guard let directory = opendir(path) else { return .failure(SystemErrno(errno)) }
        defer { _ = closedir(directory) }  // closing a read-only stream cannot lose data
        var entries: [Entry] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { return .failure(SystemErrno(errno)) }
                break
            }
            let raw = entry.nameBytes.map { CChar(bitPattern: $0) }
            guard let name = raw.withUnsafeBufferPointer({ String(validating: $0.lazy.map { UInt8(bitPattern: $0) }, as: UTF8.self) })
            else {
                // Another encoding (a Latin-1 or Shift_JIS name): looked at through its own bytes.
                let shown = String(decoding: raw.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                let full = Array(path.utf8CString.dropLast()) + [CChar(UInt8(ascii: "/"))] + raw + [0]
                entries.append(Entry(name: shown, kind: full.withUnsafeBufferPointer { kind(atC: $0.baseAddress!) }, isUTF8: false))
                continue
            }
            if name == "." || name == ".." { continue }
            entries.append(Entry(name: name, kind: kind(of: "\(path)/\(name)")))
        }
        return .success(entries.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) })
    }

    /// What is at `path`, following symbolic links.
    static func kind(of path: String) -> Entry.Kind {
        path.withCString { kind(atC: $0) }
    }

    private static func kind(atC path: UnsafePointer<CChar>) -> Entry.Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .unreadable(errno) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .folder
        default: return .other
        }
    }

    /// Up to `count` bytes from the start of a regular file.
    static func head(of path: String, count: Int) -> Result<[UInt8], SystemErrno> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .failure(SystemErrno(errno)) }
        defer { _ = close(fd) }  // read-only descriptor: close cannot lose data
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, count - filled) }  // count > 0
            if got < 0 {
                if errno == EINTR { continue }
                return .failure(SystemErrno(errno))
            }
            if got == 0 { break }
            filled += got
        }
        bytes.removeSubrange(filled...)
        return .success(bytes)
    }
}

extension UnsafeMutablePointer<dirent> {
    /// The bytes of a `readdir` entry's name, without its NUL. Read through this pointer: a
    /// dirent is only as long as its name (`d_reclen`), so copying the 256 bytes `d_name` is
    /// declared with reads past the end of the last entry in `readdir`'s buffer
    /// (AddressSanitizer: heap-buffer-overflow).
    package var nameBytes: [UInt8] {
        // The offset of a field of an imported C struct is always known.
        let start = UnsafeRawPointer(self) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        return Array(UnsafeRawBufferPointer(start: start, count: strlen(start.assumingMemoryBound(to: CChar.self))))
    }

    /// The entry's name as text (bytes that are not UTF-8 become U+FFFD).
    package var name: String { String(decoding: nameBytes, as: UTF8.self) }
}
