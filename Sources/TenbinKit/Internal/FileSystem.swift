import Glibc

/// The few file-system calls the store needs, without Foundation.
package enum FileSystem {
    /// The system's folder for temporary files: `$TMPDIR` when set and not empty, else `/tmp`.
    package static var temporaryFolder: String {
        getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    package static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Whether `path` exists and is a folder (following links).
    package static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Whether `path` can be written: its permissions allow it and its file system is not
    /// mounted read-only (which root's permissions do not override).
    package static func isWritable(_ path: String) -> Bool {
        var info = statvfs()
        if statvfs(path, &info) == 0 && info.f_flag & UInt(ST_RDONLY) != 0 { return false }
        return access(path, W_OK) == 0
    }

    /// Creates `path` and its missing parents.
    package static func makeFolders(_ path: String) throws {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/\(component)"
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw BlobError(.create, path: current, errno: errno)
            }
        }
    }
}

extension FileSystem {
    /// A file's size in bytes, or nil when it cannot be read.
    package static func size(of path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }
}
