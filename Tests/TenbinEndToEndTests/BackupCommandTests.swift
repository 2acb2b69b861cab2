import Foundation
import TestPostgresServer
import Testing

/// `tenbin backup` of a live board, run as an operator runs it: while another process votes,
/// and while the test itself votes and posts with the backup held inside its snapshot (tenbin
/// waits at a named point on a pipe the test opens: `TENBIN_TEST_HOLD`). The backup holds
/// every vote answered before it began and nothing committed after its snapshot, is a sound
/// store folder whose images are the source's files, and restores with `tenbin copy`.
@Suite(.ownThreads, .timeLimit(.minutes(10)))
struct BackupCommandTests {
    /// What a backup run under a held snapshot saw: its run, and the board's side.
    struct HeldBackup {
        let run: TenbinRun
        /// Poster 1's votes before the backup began, and after the votes cast while it was held.
        let before: (good1: Int, good2: Int)
        let after: (good1: Int, good2: Int)
        /// The poster posted while the backup was held.
        let postedID: Int
    }

    /// Votes `times` on poster 1's `side` and returns its counts as the answer gave them.
    static func vote(_ side: Int, times: Int, store: String, choice: [String]) throws -> (good1: Int, good2: Int) {
        let voted = try Tenbin.run(["vote", "1", "\(side)", "--times", "\(times)", "--json"] + choice, store: store)
        try #require(voted.status == 0, "\(voted.stderr)")
        let compact = voted.stdout.filter { $0 != " " }
        let good1 = try #require(compact.firstMatch(of: /"good1":(\d+)/).flatMap { Int($0.output.1) })
        let good2 = try #require(compact.firstMatch(of: /"good2":(\d+)/).flatMap { Int($0.output.1) })
        return (good1, good2)
    }

    /// Backs up the board in `store` (with `choice`, a PostgreSQL database) to `destination` while
    /// a second process votes on poster 2 throughout, and while the backup is held inside its
    /// snapshot (after its 10th poster) this test votes on poster 1 and posts a new poster.
    static func heldBackup(store: String, choice: [String], destination: String, folder: ScratchFolder) throws -> HeldBackup {
        let before = try vote(1, times: 5, store: store, choice: choice)
        let stop = folder.path + "/stop-voting"
        let quoted = ([Tenbin.binary, "--store", store, "vote", "2", "1"] + choice).map { "'\($0)'" }.joined(separator: " ")
        let voter = try RunningProcess(["/bin/sh", "-c", "while [ ! -e '\(stop)' ]; do \(quoted) >/dev/null || exit 1; done"])
        defer {
            _ = FileManager.default.createFile(atPath: stop, contents: nil)
            _ = try? voter.finish()
        }
        let markers = folder.path + "/markers"
        let fifo = folder.path + "/hold"
        try #require(mkfifo(fifo, 0o600) == 0)
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "TENBIN_STORE")
        environment["TENBIN_TEST_MARKERS"] = markers
        environment["TENBIN_TEST_HOLD"] = "backup:posters 10=\(fifo)"
        let output = folder.path + "/backup-output"
        let backup = try RunningProcess(
            [
                "/bin/sh", "-c", "exec \"$0\" \"$@\" >'\(output)'", Tenbin.binary, "--store", store, "backup", "--to", destination,
                "--batch", "5",
            ]
                + choice, environment: environment)
        func reached() -> String { (try? String(contentsOfFile: markers, encoding: .utf8)) ?? "" }
        _ = try poll(seconds: 120, "the backup to reach its 10th poster", seen: reached) {
            reached().contains("backup:posters 10\n") || !backup.process.isRunning ? true : nil
        }
        // Held inside the snapshot: votes and a post, each answered before the backup goes on.
        let after = try vote(2, times: 4, store: store, choice: choice)
        let posted = try Tenbin.run(
            ["post", PostgresCommandTests.images[0], PostgresCommandTests.images[1], "--json"] + choice, store: store)
        try #require(posted.status == 0, "\(posted.stderr)")
        let postedID = try #require(posted.stdout.firstMatch(of: /"id": (\d+)/).flatMap { Int($0.output.1) })
        // Opening the pipe for writing lets the backup's read of it end.
        if backup.process.isRunning { try FileHandle(forWritingAtPath: fifo)?.close() }
        let stderr = try backup.finish()
        let stdout = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return HeldBackup(
            run: TenbinRun(status: backup.terminationStatus, stdout: stdout, stderr: stderr, stdoutBytes: Data(stdout.utf8)),
            before: before,
            after: after, postedID: postedID)
    }

    /// The checks every held backup passes, whatever its source's backend.
    static func expectSnapshot(_ held: HeldBackup, source: String, sourceBlobs: String, destination: String, folder: ScratchFolder) throws {
        #expect(held.run.status == 0, "\(held.run.stderr)")
        #expect(held.run.stdout.contains("Backed up 38 posters (ids 1–39) and 2 blob rows"), "\(held.run.stdout)")
        #expect(held.run.stdout.contains("2 image files linked, 0 copied"), "\(held.run.stdout)")
        #expect(held.after.good2 == held.before.good2 + 4)
        // Poster 1 as it was when the backup began: the held votes and post are not in it.
        let shown = try Tenbin.run(["show", "1", "--json"], store: destination)
        #expect(
            shown.stdout.filter { $0 != " " }.contains("\"good1\":\(held.before.good1),\"good2\":\(held.before.good2)"), "\(shown.stdout)")
        let missing = try Tenbin.run(["show", "\(held.postedID)"], store: destination)
        #expect(missing.status == 1, "\(missing.stdout)")
        let checked = try Tenbin.run(["check"], store: destination)
        #expect(checked.status == 0 && checked.stdout.contains("38 posters, 2 blobs, all sound"), "\(checked.stdout)\(checked.stderr)")
        // The backup's image files are the source's, linked (same file system).
        let blobs = try FileManager.default.subpathsOfDirectory(atPath: destination + "/blobs").filter { $0.count > 3 }
        #expect(blobs.count == 2)
        for blob in blobs {
            let mine = try FileManager.default.attributesOfItem(atPath: destination + "/blobs/" + blob)
            let theirs = try FileManager.default.attributesOfItem(atPath: sourceBlobs + "/blobs/" + blob)
            #expect(mine[.systemFileNumber] as? Int == theirs[.systemFileNumber] as? Int, "\(blob)")
        }
        // Nothing else beside it: its work folder was renamed into place.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".partial-") }
        #expect(leftovers.isEmpty, "\(leftovers)")
        // Restoring is a copy; the restored board reads as the backup does.
        let restored = folder.path + "/restored"
        let copied = try Tenbin.run(["copy", "--from", destination, "--to", restored])
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(try CopyCommandTests.view(store: restored) == CopyCommandTests.view(store: destination))
    }

    @Test func aBackupOfALiveSQLiteBoardHoldsItsSnapshotAndRestores() throws {
        let folder = try ScratchFolder()
        let (source, _) = try CopyCommandTests.board(folder, count: 40)
        let destination = folder.path + "/backup"
        let held = try Self.heldBackup(store: source, choice: [], destination: destination, folder: folder)
        try Self.expectSnapshot(held, source: source, sourceBlobs: source, destination: destination, folder: folder)
    }

    @Test func aBackupAsJSONSummarisesTheSnapshot() throws {
        let folder = try ScratchFolder()
        let (source, _) = try CopyCommandTests.board(folder, count: 8)
        let destination = folder.path + "/backup"
        let run = try Tenbin.run(["backup", "--to", destination, "--json"], store: source)
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: run.stdoutBytes) as? [String: Any])
        let backup = try #require(object["backup"] as? [String: Any])
        let sourceSummary = try #require(object["source"] as? [String: Any])
        #expect(backup["location"] as? String == destination)
        #expect(sourceSummary["location"] as? String == source)
        #expect(backup["posters"] as? Int == 6 && backup["blobs"] as? Int == 2 && backup["lastPosterID"] as? Int == 8)
        #expect(backup["posterDigest"] as? String == sourceSummary["posterDigest"] as? String)
        #expect(object["files"] as? [String: Int] == ["linked": 2, "copied": 0])
        #expect(object["blobRowsSkipped"] as? Int == 0 && object["milliseconds"] is Int)
    }

    /// /dev/shm, when it is another file system than the temporary folder (it is a tmpfs).
    static let otherFileSystem: String? = {
        var shm = stat()
        var temporary = stat()
        guard stat("/dev/shm", &shm) == 0, stat(NSTemporaryDirectory(), &temporary) == 0, shm.st_dev != temporary.st_dev,
            access("/dev/shm", W_OK) == 0
        else { return nil }
        return "/dev/shm"
    }()

    @Test(.enabled(if: otherFileSystem != nil)) func aBackupOnAnotherFileSystemCopiesTheImagesAndChecksClean() throws {
        let folder = try ScratchFolder()
        let (source, _) = try CopyCommandTests.board(folder, count: 6)
        let destination = (Self.otherFileSystem ?? "") + "/tenbin-backup-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let run = try Tenbin.run(["backup", "--to", destination, "--json"], store: source)
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: run.stdoutBytes) as? [String: Any])
        #expect(object["files"] as? [String: Int] == ["linked": 0, "copied": 2])
        let checked = try Tenbin.run(["check"], store: destination)
        #expect(checked.status == 0 && checked.stdout.contains("4 posters, 2 blobs, all sound"), "\(checked.stdout)\(checked.stderr)")
    }

    @Test func aBackupIsRefusedWhereItCannotGoAndAFailedOneLeavesNothing() throws {
        let folder = try ScratchFolder()
        let (source, _) = try CopyCommandTests.board(folder, count: 4)
        let full = folder.path + "/full"
        try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: full + "/notes.txt", contents: Data("keep".utf8))
        let intoFull = try Tenbin.run(["backup", "--to", full], store: source)
        #expect(intoFull.status == 1 && intoFull.stderr == "Error: \(full) is not empty; a backup goes into a new or empty folder\n")
        let file = full + "/notes.txt"
        let intoFile = try Tenbin.run(["backup", "--to", file], store: source)
        #expect(intoFile.status == 1 && intoFile.stderr == "Error: \(file) is a file; a backup goes into a new or empty folder\n")
        let noTarget = try Tenbin.run(["backup"], store: source)
        #expect(noTarget.status == 64 && noTarget.stderr.hasPrefix("Error: missing '--to DIR'\n"), "\(noTarget.stderr)")
        let missing = try Tenbin.run(["backup", "--to", folder.path + "/b"], store: folder.path + "/nothing")
        #expect(missing.status == 1 && missing.stderr.contains("\(folder.path)/nothing"), "\(missing.stderr)")
        // An empty folder is a fine destination.
        let empty = folder.path + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        #expect(try Tenbin.run(["backup", "--to", empty], store: source).status == 0)
        // A damaged image file stops the backup, naming it, and nothing is left behind.
        let blobs = try FileManager.default.subpathsOfDirectory(atPath: source + "/blobs").filter { $0.count > 3 }.sorted()
        try Data("not the image".utf8).write(to: URL(fileURLWithPath: source + "/blobs/" + blobs[0]))
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let damaged = try Tenbin.run(["backup", "--to", folder.path + "/damaged"], store: source)
        let digest = String(blobs[0].split(separator: "/").last ?? "")
        #expect(damaged.status == 1 && damaged.stderr.contains("blob \(digest) file hashes to "), "\(damaged.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == before)
    }
}

/// `tenbin backup` of a live PostgreSQL board: the same promises, from one REPEATABLE READ
/// snapshot, the images taken from the blob folder `--store` names.
@Suite(.ownThreads, .enabled(if: TestPostgresServer.suitesRun), .timeLimit(.minutes(10)))
struct PostgresBackupCommandTests {
    @Test func aBackupOfALivePostgreSQLBoardHoldsItsSnapshotAndRestores() throws {
        let folder = try ScratchFolder()
        let (sqlite, _) = try CopyCommandTests.board(folder, count: 40)
        let database = try PostgresCommandTests.freshDatabase()
        let blobs = folder.path + "/pg"
        let copied = try Tenbin.run(["copy", "--from", sqlite, "--to", database, "--to-blobs", blobs])
        try #require(copied.status == 0, "\(copied.stderr)")
        let destination = folder.path + "/backup"
        let held = try BackupCommandTests.heldBackup(
            store: blobs, choice: ["--database", database], destination: destination, folder: folder)
        try BackupCommandTests.expectSnapshot(held, source: database, sourceBlobs: blobs, destination: destination, folder: folder)
        // Restoring into an empty PostgreSQL database gives the board as backed up.
        let restored = try PostgresCommandTests.freshDatabase()
        let back = try Tenbin.run(["copy", "--from", destination, "--to", restored, "--to-blobs", folder.path + "/pg2"])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try CopyCommandTests.view(store: folder.path + "/pg2", database: restored) == CopyCommandTests.view(store: destination))
    }
}
