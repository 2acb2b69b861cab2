#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few file-system calls the store needs, without Foundation.
enum FileSystem {
    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Creates `path` and its missing parents.
    static func makeFolders(_ path: String) throws {
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
    static func size(of path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }
}
