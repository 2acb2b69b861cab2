import Foundation
import TestProcesses
import Testing

/// A store on a file system without hard links: a new database is built aside and linked
/// into place, and where `link` is refused (FAT, exFAT) it is renamed without ever replacing
/// another process's database. Before, `link`'s `EPERM` came out as "the store is read-only".
@Suite(.ownThreads, .timeLimit(.minutes(10))) struct FATStoreTests {
    static let cats = [Tenbin.root + "/SampleImages/01-cats-or-dogs/1-cat.jpg", Tenbin.root + "/SampleImages/01-cats-or-dogs/2-dog.jpg"]

    /// The kinds this machine mounts (probed once: a kernel without `vfat` may still run
    /// exFAT through FUSE).
    static let mountable: [FATMount.Kind] = FATMount.Kind.allCases.filter { kind in (try? FATMount(kind)) != nil }

    /// Skipped, and said so in the run's output, where neither kernel vfat nor exfat-fuse on a
    /// loop device mounts (no root, no loop devices or no /dev/fuse, as in some containers):
    /// that is the machine's limit, not the store's, so it does not fail CI either.
    @Test(.enabled(if: !mountable.isEmpty, "needs root and a FAT or exFAT mount (kernel vfat, or exfat-fuse on a loop device)"))
    func storesAreCreatedPostedToAndClosedOnFATFileSystemsEvenByTwoProcessesAtOnce() throws {
        for kind in Self.mountable {
            let mount = try FATMount(kind)
            // The link step really is refused here.
            let probe = mount.path + "/probe"
            #expect(FileManager.default.createFile(atPath: probe, contents: Data("x".utf8)))
            #expect(link(probe, probe + "-link") != 0, "\(kind) has hard links")
            _ = unlink(probe)

            let store = mount.path + "/Storage"
            let first = try Tenbin.run(["post"] + Self.cats + ["--text", "first"], store: store)
            #expect(first.status == 0, "\(kind): \(first.stderr)")
            #expect(first.stderr == "", "\(kind)")
            #expect(try Tenbin.run(["vote", "1", "2"], store: store).status == 0)
            let check = try Tenbin.run(["check"], store: store)
            #expect(check.status == 0 && check.stdout.hasPrefix("OK: 1 poster"), "\(kind): \(check.stdout)\(check.stderr)")
            let files = try FileManager.default.contentsOfDirectory(atPath: store)
            #expect(!files.contains { $0.contains(".tmp-") || $0.hasPrefix("tenbin.sqlite-") }, "\(kind): \(files)")
            let read = try Shell.capture(["sqlite3", "file:\(store)/tenbin.sqlite?immutable=1", "SELECT count(*), sum(good2) FROM poster"])
            #expect(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1|1", "\(kind): \(read.stderr)")

            // Two processes creating one new store at once: one database, both posters in it.
            let shared = mount.path + "/Shared"
            let racers = try (1...2).map { index in
                try RunningProcess([Tenbin.binary, "--store", shared, "post"] + Self.cats + ["--text", "racer \(index)"])
            }
            for racer in racers {
                let output = try racer.finish()
                #expect(racer.terminationStatus == 0, "\(kind): \(output)")
            }
            let list = try Tenbin.run(["list", "--json"], store: shared)
            #expect(list.stdout.components(separatedBy: "\"racer ").count == 3, "\(kind): \(list.stdout)\(list.stderr)")
            #expect(try Tenbin.run(["check"], store: shared).status == 0)
        }
    }
}

/// A FAT-family file system in an image file, mounted in a scratch folder for one test and
/// unmounted when released: kernel `vfat` on a loop mount, or exFAT through FUSE
/// (`mount.exfat-fuse` on a loop device), for kernels built without `vfat`.
final class FATMount {
    enum Kind: String, CaseIterable {
        case vfat, exfat
    }

    let folder: ScratchFolder
    /// Where it is mounted.
    let path: String
    private var loopDevice: String?
    private var mounted = false
    private var fuseProcess: Process?

    /// Makes and mounts a 64 MB file system of `kind`; throws when this machine cannot.
    init(_ kind: Kind) throws {
        folder = try ScratchFolder()
        path = folder.path + "/mount"
        let image = folder.path + "/image"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: image, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: image))
        try handle.truncate(atOffset: 64 << 20)
        try handle.close()
        guard getuid() == 0 else { throw POSIXError(.EPERM) }
        switch kind {
        case .vfat:
            try Shell.run("/usr/sbin/mkfs.vfat", image)
            try Shell.run("/usr/bin/mount", "-t", "vfat", "-o", "loop", image, path)
        case .exfat:
            try Shell.run("/usr/sbin/mkfs.exfat", image)
            let loop = try Shell.capture(["/usr/sbin/losetup", "--find", "--show", image])
            guard loop.status == 0 else { throw POSIXError(.ENODEV) }
            loopDevice = loop.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            // Run in the foreground (`-d`), as this process's own child: daemonized, it would keep
            // a descriptor Foundation waits on, and its exit would never be seen.
            let fuse = Process()
            fuse.executableURL = URL(fileURLWithPath: "/usr/sbin/mount.exfat-fuse")
            fuse.arguments = ["-d", loopDevice!, path]  // set just above
            (fuse.standardInput, fuse.standardOutput, fuse.standardError) = (
                FileHandle.nullDevice, FileHandle.nullDevice, FileHandle.nullDevice
            )
            try fuse.start()
            fuseProcess = fuse
            // Mounted once the folder is on another device than its parent.
            let deadline = Date() + 20
            while !Self.isMountPoint(path) {
                guard fuse.isRunning, Date() < deadline else { throw POSIXError(.ENODEV) }
                usleep(20_000)
            }
        }
        mounted = true
    }

    deinit {
        // A busy mount is detached lazily: the FUSE process then ends as the last user leaves.
        if mounted, (try? Shell.run("/usr/bin/umount", path)) == nil { _ = try? Shell.run("/usr/bin/umount", "--lazy", path) }
        if let fuse = fuseProcess {
            if !mounted { fuse.terminate() }
            fuse.waitForExit()
        }
        if let loopDevice { _ = try? Shell.run("/usr/sbin/losetup", "--detach", loopDevice) }
    }

    /// Whether `path` is on another device than its parent folder.
    static func isMountPoint(_ path: String) -> Bool {
        var (inner, outer) = (stat(), stat())
        return stat(path, &inner) == 0 && stat(path + "/..", &outer) == 0 && inner.st_dev != outer.st_dev
    }
}
