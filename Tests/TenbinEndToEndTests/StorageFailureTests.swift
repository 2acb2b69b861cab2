import Foundation
import Testing

/// Posting into a store that runs out of space, or that cannot be written, fails with one
/// clear line and leaves a store `tenbin check` passes.
@Suite(.ownThreads, .timeLimit(.minutes(10))) struct StorageFailureTests {
    static let small = [Tenbin.root + "/SampleImages/01-cats-or-dogs/1-cat.jpg", Tenbin.root + "/SampleImages/01-cats-or-dogs/2-dog.jpg"]
    static let large = [Tenbin.root + "/SampleImages/03-phone-portrait/a-rotated.jpg", Tenbin.root + "/SampleImages/07-tokyo/tower.JPG"]

    /// Whether this process may mount file systems (root with CAP_SYS_ADMIN, as in CI).
    static let canMount: Bool = {
        guard getuid() == 0, let probe = try? ScratchFolder() else { return false }
        defer { _ = try? Shell.run("umount", probe.path) }
        return (try? Shell.run("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", probe.path)) == 0
    }()

    /// ThreadSanitizer's runtime itself dies (SIGBUS) under a file-size limit, so this runs
    /// only in the normal and AddressSanitizer builds.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["TENBIN_SANITIZER"] != "thread"))
    func aFileSizeLimitFailsThePostCleanly() throws {
        let store = try ScratchFolder()
        #expect(try Tenbin.run(["post"] + Self.small, store: store.path).status == 0)
        // 100 KiB: room for the database's next commit, not for the first image's blob.
        let script = "ulimit -f 100 && exec \"$0\" --store \"$1\" post \"$2\" \"$3\""
        let run = try Shell.capture(["/bin/sh", "-c", script, Tenbin.binary, store.path] + Self.large)
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("Error: \(store.path)/blobs/"))
        #expect(run.stderr.contains(": cannot write: File too large"))
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(!store.files().contains { $0.contains(".tmp-") }, "no temporary file is left")
        #expect(try Tenbin.run(["check"], store: store.path).status == 0)
        #expect(try Tenbin.run(["list", "--json"], store: store.path).stdout.hasPrefix("[\n  {\"id\": 1,"))
    }

    @Test(.enabled(if: canMount)) func aFullDiskFailsThePostCleanlyAndKeepsWhatWasThere() throws {
        let mount = try ScratchFolder()
        // Room for a new store and one small poster (the schema's own pages included), not
        // for the large images.
        try Shell.run("mount", "-t", "tmpfs", "-o", "size=288k", "tmpfs", mount.path)
        defer { _ = try? Shell.run("umount", mount.path) }
        #expect(try Tenbin.run(["post"] + Self.small, store: mount.path).status == 0)
        let run = try Tenbin.run(["post"] + Self.large, store: mount.path)
        #expect(run.status == 1)
        #expect(run.stderr.contains("No space left on device (the disk is full)") || run.stderr.contains("(the disk is full)"))
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(!mount.files().contains { $0.contains(".tmp-") })
        let check = try Tenbin.run(["check"], store: mount.path)
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains("OK: 1 poster"))
        #expect(try Tenbin.run(["show", "1"], store: mount.path).status == 0)
    }

    @Test(.enabled(if: canMount)) func aReadOnlyStoreCanBeReadButNotWritten() throws {
        let store = try ScratchFolder()
        #expect(try Tenbin.run(["post"] + Self.small, store: store.path).status == 0)
        try Shell.run("mount", "--bind", store.path, store.path)
        defer { _ = try? Shell.run("umount", store.path) }
        try Shell.run("mount", "-o", "remount,ro,bind", store.path)
        #expect(try Tenbin.run(["list", "--json"], store: store.path).stdout.contains("\"id\": 1"))
        #expect(try Tenbin.run(["check"], store: store.path).status == 0)
        let vote = try Tenbin.run(["vote", "1", "1"], store: store.path)
        #expect(vote.status == 1)
        #expect(vote.stderr.hasPrefix("Error: \(store.path): the store is read-only"), "\(vote.stderr)")
        #expect(!vote.stderr.contains("SQLite") && !vote.stderr.contains("UPDATE"))
        let post = try Tenbin.run(["post"] + Self.large, store: store.path)
        #expect(post.status == 1)
        #expect(post.stderr.contains("read-only file system"))
        #expect(post.stderr.split(separator: "\n").count == 1)
    }

    /// The search index's check is all reads (since schema 8), so a read-only store gets it too.
    @Test(.enabled(if: canMount)) func aReadOnlyStoresSearchIndexIsCheckedToo() throws {
        let store = try ScratchFolder()
        #expect(try Tenbin.run(["post"] + Self.small, store: store.path).status == 0)
        let damage = try Shell.capture([
            "sqlite3", "\(store.path)/tenbin.sqlite", "INSERT INTO search_posting (segment, piece, postings) VALUES (999, 1, x'000101')",
        ])
        #expect(damage.status == 0, "\(damage.stderr)")
        try Shell.run("mount", "--bind", store.path, store.path)
        defer { _ = try? Shell.run("umount", store.path) }
        try Shell.run("mount", "-o", "remount,ro,bind", store.path)
        let check = try Tenbin.run(["check"], store: store.path)
        #expect(check.status == 1)
        #expect(
            check.stderr.contains(
                "the search index is damaged (1 entry, such as segment 999, piece 1: it belongs to no segment); `tenbin check --repair` rebuilds it"
            ),
            "\(check.stderr)")
        // A repair is a write: a read-only store refuses it in one line and stays as it was.
        let refused = try Tenbin.run(["check", "--repair"], store: store.path)
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("Error: \(store.path): the store is read-only"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1)
    }

    /// `check --repair` rebuilds search from the posters' text; an image it cannot mend.
    @Test func checkRepairRebuildsADamagedSearchIndexButNotAMissingImage() throws {
        let store = try ScratchFolder()
        #expect(try Tenbin.run(["post"] + Self.small + ["--text", "猫と犬", "--tag", "ねこ"], store: store.path).status == 0)
        #expect(try Tenbin.run(["post"] + Self.small + ["--text", "海と山"], store: store.path).status == 0)
        let damage = try Shell.capture([
            "sqlite3", "\(store.path)/tenbin.sqlite",
            "UPDATE search_posting SET postings = x'0005ff'; UPDATE search_key SET key = 'x' WHERE poster_id = 2",
        ])
        #expect(damage.status == 0, "\(damage.stderr)")
        #expect(try Tenbin.run(["check"], store: store.path).status == 1)
        let repaired = try Tenbin.run(["check", "--repair"], store: store.path)
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(repaired.stdout == "Rebuilt search from the text of 2 posters.\nOK: 2 posters, 2 blobs, all sound.\n")
        #expect(try Tenbin.run(["search", "ネコ", "--json"], store: store.path).stdout.contains("\"id\": 1"))
        #expect(try Tenbin.run(["search", "山", "--json"], store: store.path).stdout.contains("\"id\": 2"))
        let json = try Tenbin.run(["check", "--repair", "--json"], store: store.path)
        #expect(json.stdout == "{\"ok\": true, \"posters\": 2, \"blobs\": 2, \"searchRebuilt\": 2, \"problems\": [], \"notes\": []}\n")
        // A missing image is still a problem after a repair, and the exit says so.
        let blob = try #require(try FileManager.default.subpathsOfDirectory(atPath: "\(store.path)/blobs").first { $0.count > 60 })
        try FileManager.default.removeItem(atPath: "\(store.path)/blobs/\(blob)")
        let broken = try Tenbin.run(["check", "--repair"], store: store.path)
        #expect(broken.status == 1)
        #expect(broken.stdout == "Rebuilt search from the text of 2 posters.\n")
        #expect(broken.stderr.contains("is missing; used by posters 1, 2"), "\(broken.stderr)")
    }
}
