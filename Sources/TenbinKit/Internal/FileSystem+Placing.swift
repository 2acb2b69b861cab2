import Glibc

extension FileSystem {
    /// A way to give a finished file its name without replacing a file that has it.
    package enum Placing: CaseIterable, Sendable {
        /// `link`: atomic; the file system must have hard links (FAT and exFAT, many FUSE and
        /// SMB mounts have none).
        case link
        /// `renameat2` with `RENAME_NOREPLACE`: atomic; the kernel and file system must know
        /// the flag (FUSE file systems that lack it answer `EINVAL`).
        case exclusiveRename
        /// A plain `rename`, made only while holding an exclusive `flock` on the folder and
        /// after seeing that the name is free: every creator that gets here takes that lock,
        /// so two of them cannot both see the name free (a reader that opens the name sees
        /// nothing or the whole file, as with the others).
        case lockedRename
    }

    /// What ``place(_:at:folder:ways:)`` did.
    package enum Placed: Equatable, Sendable {
        /// The file has the name now: linked (the staging name is left to remove) or renamed.
        case placed(Placing)
        /// Another file had the name already: it is kept, and the staging file left as it was.
        case taken
    }

    /// Why ``place(_:at:folder:ways:)`` failed: an errno value, or none of the ways works
    /// on this file system (with the errno each answered).
    package enum PlacingFailure: Error, Equatable {
        case failed(Int32)
        case unsupported([Int32])
    }

    /// Gives the finished file `staging` the name `path` in `folder`, unless a file has it
    /// already, trying `ways` in order and going on to the next only when the file system
    /// does not support one. Never replaces a file that has the name, even one another process
    /// placed a moment ago.
    package static func place(
        _ staging: String, at path: String, folder: String, ways: [Placing] = Placing.allCases
    ) throws(PlacingFailure) -> Placed {
        var answers: [Int32] = []
        for way in ways {
            let code: Int32
            switch way {
            case .link:
                code = Glibc.link(staging, path) == 0 ? 0 : errno
            case .exclusiveRename:
                code = renameWithoutReplacing(staging, path)
            case .lockedRename:
                code = renameUnderLock(staging, path, folder: folder)
            }
            switch code {
            case 0: return .placed(way)
            case EEXIST: return .taken
            case EPERM, EOPNOTSUPP, ENOSYS, EINVAL, ENOLCK:
                // The file system (or kernel) does not do this: the staging file was made in
                // the same folder, so a refusal here is not about permissions.
                answers.append(code)
            default: throw .failed(code)
            }
        }
        throw .unsupported(answers)
    }

    /// `renameat2(…, RENAME_NOREPLACE)`: 0, or the errno (`ENOSYS` without it in the C library).
    private static func renameWithoutReplacing(_ from: String, _ to: String) -> Int32 {
        // A GNU extension that Swift's Glibc module does not declare: looked up once in the
        // C library tenbin already runs on (glibc 2.28 and later have it).
        guard let function = renameat2 else { return ENOSYS }
        return function(AT_FDCWD, from, AT_FDCWD, to, 1 /* RENAME_NOREPLACE */) == 0 ? 0 : errno
    }

    private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32

    // Resolved once; the symbol's type is glibc's documented prototype.
    private static let renameat2: RenameAt2? = dlsym(nil, "renameat2").map { unsafeBitCast($0, to: RenameAt2.self) }

    /// Renames `from` to `to` if `to` does not exist, holding an exclusive `flock` on
    /// `folder` meanwhile: 0, `EEXIST`, or the errno of the lock or the rename.
    private static func renameUnderLock(_ from: String, _ to: String, folder: String) -> Int32 {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return errno }
        defer { _ = close(descriptor) }  // closing it also lets go of the lock
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { return errno }
        }
        if access(to, F_OK) == 0 { return EEXIST }
        guard errno == ENOENT else { return errno }
        return rename(from, to) == 0 ? 0 : errno
    }
}
