import Foundation
import TenbinKit
import TestProcesses
import Testing

/// `tenbin watch --json` as a child process while other `tenbin` processes post, vote and
/// delete. Waits for lines have generous time-outs; nothing here asserts on timing.
@Suite(.ownThreads, .timeLimit(.minutes(10))) struct WatchCommandTests {
    static let cats = ["\(Tenbin.root)/SampleImages/01-cats-or-dogs/1-cat.jpg", "\(Tenbin.root)/SampleImages/01-cats-or-dogs/2-dog.jpg"]
    static let sea = [
        "\(Tenbin.root)/SampleImages/09-sea-or-mountain/sea.jpg", "\(Tenbin.root)/SampleImages/09-sea-or-mountain/mountain.jpg",
    ]

    func post(_ images: [String], _ store: ScratchFolder, text: String = "") throws {
        let run = try Tenbin.run(["post", images[0], images[1], "--text", text], store: store.path)
        #expect(run.status == 0, "\(run.stderr)")
    }

    func tenbin(_ arguments: String..., store: ScratchFolder) throws {
        let run = try Tenbin.run(arguments, store: store.path)
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test func watchStreamsTheSnapshotThenEachChangeOtherProcessesCommit() throws {
        let store = try ScratchFolder()
        try post(Self.cats, store, text: "cats")
        try post(Self.sea, store, text: "sea")
        let watch = try WatchProcess(["watch", "--json", "--sort", "popular"], store: store)
        let snapshot = try watch.nextObject()
        #expect(snapshot["type"] as? String == "snapshot")
        #expect((snapshot["posters"] as? [[String: Any]])?.map { $0["id"] as? Int } == [2, 1])

        try tenbin("vote", "1", "1", store: store)
        let vote = try watch.nextObject()
        #expect(vote["type"] as? String == "modified")
        #expect(vote["id"] as? Int == 1)
        #expect(vote["oldIndex"] as? Int == 1)
        #expect(vote["newIndex"] as? Int == 0)
        #expect((vote["poster"] as? [String: Any])?["good1"] as? Int == 1)

        try post(Self.cats, store, text: "again")
        let added = try watch.nextObject()
        #expect(added["type"] as? String == "added")
        #expect(added["id"] as? Int == 3)
        #expect(added["newIndex"] as? Int == 1)
        #expect(added["oldIndex"] == nil)
        #expect((added["poster"] as? [String: Any])?["contents"] as? String == "again")

        try tenbin("delete", "2", store: store)
        let removed = try watch.nextObject()
        #expect(removed["type"] as? String == "removed")
        #expect(removed["id"] as? Int == 2)
        #expect(removed["oldIndex"] as? Int == 2)
        #expect(removed["newIndex"] == nil)

        let ended = try watch.interrupt()
        #expect(ended.status == 130)
        #expect(ended.stderr == "")
        #expect(ended.unreadLines == [])
    }

    /// The watch's first line tells a script it is running; a SIGINT sent at once must end it,
    /// through its handler (which closes the store). Before the fix the handlers were put in
    /// place after the feed began, and asynchronously: a signal in between was ignored and the
    /// watch ran on. This test does not catch that race on an idle machine (a shell script that
    /// interrupts faster hung 6 runs in 40); it catches handlers that are missing or late by
    /// more than a line's trip to this process.
    @Test func aWatchInterruptedAsSoonAsItPrintsItsSnapshotEnds() throws {
        let store = try ScratchFolder()
        try post(Self.cats, store)
        for _ in 1...10 {
            let watch = try WatchProcess(["watch", "--json"], store: store)
            #expect(try watch.nextObject()["type"] as? String == "snapshot")
            let ended = try watch.interrupt()
            #expect(ended.status == 130)
            #expect(ended.stderr == "")
            // Ended by its handler, not by the signal's default action: the store was closed.
            #expect(!store.files().contains { $0.hasPrefix("tenbin.sqlite-") }, "\(store.files())")
        }
    }

    @Test func offATerminalWatchPrintsJSONLinesAndAPostPushesTheOldestOutOfAFullFeed() throws {
        let store = try ScratchFolder()
        try post(Self.cats, store)
        try post(Self.sea, store)
        let watch = try WatchProcess(["watch", "--limit", "2"], store: store)
        #expect((try watch.nextObject()["posters"] as? [Any])?.count == 2)
        try post(Self.cats, store)
        let first = try watch.nextObject()
        let second = try watch.nextObject()
        #expect(first["type"] as? String == "removed" && first["id"] as? Int == 1 && first["oldIndex"] as? Int == 1)
        #expect(second["type"] as? String == "added" && second["id"] as? Int == 3 && second["newIndex"] as? Int == 0)
        #expect(try watch.interrupt().status == 130)
    }

    @Test func aQueryWatchesOnlyMatchingPosters() throws {
        let store = try ScratchFolder()
        try post(Self.cats, store, text: "Cats or dogs?")
        try post(Self.sea, store, text: "Sea or mountain?")
        let watch = try WatchProcess(["watch", "--json", "--query", "cats"], store: store)
        #expect((try watch.nextObject()["posters"] as? [[String: Any]])?.map { $0["id"] as? Int } == [1])
        try post(Self.sea, store, text: "no match")
        try post(Self.cats, store, text: "more CATS")
        let added = try watch.nextObject()
        #expect(added["type"] as? String == "added" && added["id"] as? Int == 4)
        #expect(try watch.interrupt().unreadLines == [])
    }

    @Test func watchingAStoreThatDoesNotExistYetSeesItsFirstPoster() throws {
        let store = try ScratchFolder()
        let path = "\(store.path)/later"
        let watch = try WatchProcess(["--store", path, "watch", "--json"], store: nil)
        #expect((try watch.nextObject()["posters"] as? [Any])?.count == 0)
        let run = try Tenbin.run(["--store", path, "post", Self.cats[0], Self.cats[1]])
        #expect(run.status == 0)
        #expect(try watch.nextObject()["type"] as? String == "added")
        #expect(try watch.interrupt().status == 130)
    }

    @Test(.enabled(if: Terminal.available, "needs tmux"))
    func onATerminalWatchRedrawsTheFeedAndCtrlCRestoresTheScreen() throws {
        let store = try ScratchFolder()
        try post(Self.cats, store, text: "cats")
        let terminal = try Terminal(command: "\(Tenbin.binary) --store \(store.path) watch --sort popular", folder: store)
        defer { terminal.close() }
        let first = try terminal.waitForScreen { $0.contains("#1") && $0.contains("Ctrl-C to quit") }
        #expect(first.contains("0 : 0"))
        try tenbin("vote", "1", "1", "--times", "3", store: store)
        let voted = try terminal.waitForScreen { $0.contains("3 : 0") }
        #expect(voted.contains("• #1"))
        try terminal.send("C-c")
        #expect(try terminal.waitForStatus() == "130")
        let after = try terminal.waitForScreen { !$0.contains("Ctrl-C to quit") }
        #expect(after.contains("before watch"))
    }

    @Test func watchEndsWithStatusZeroWhenItsReaderGoesAway() throws {
        let store = try ScratchFolder()
        try post(Self.cats, store)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tenbin.binary)
        process.arguments = ["--store", store.path, "watch", "--json"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.start()
        let deadline = Deadline(process, what: "tenbin watch --json")
        var received = Data()
        while !received.contains(0x0A) {
            let chunk = output.fileHandleForReading.nextChunk()
            if chunk.isEmpty { break }
            received.append(chunk)
        }
        #expect(String(decoding: received, as: UTF8.self).hasPrefix("{\"type\": \"snapshot\""))
        try output.fileHandleForReading.close()
        process.waitForExit()
        try deadline.check()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }

    @Test func badOptionsAreUsageErrors() throws {
        let store = try ScratchFolder()
        for arguments in [
            ["watch", "--limit", "0"], ["watch", "--sort", "old"], ["watch", "extra"], ["watch", "--limit", "1001"],
            ["watch", "--query", ""], ["watch", "--query", " \u{3000}"],
        ] {
            let run = try Tenbin.run(arguments, store: store.path)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stdout == "")
            #expect(run.stderr.hasPrefix("Error: "), "\(arguments)")
            #expect(run.stderr.contains("Usage: tenbin watch"), "\(arguments)")
        }
    }

    @Test func helpDescribesWatch() throws {
        let run = try Tenbin.run(["help", "watch"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("USAGE: tenbin watch [--sort new|popular|trending] [--limit N] [--query WORDS] [--json]"))
    }
}

/// A running `tenbin` (or another program, such as curl) whose output is read line by line as
/// it comes.
final class WatchProcess {
    private let process = Process()
    private let errors = Pipe()
    private let buffer = LineBuffer()
    private let reader: Thread
    private var deadline: Deadline?

    /// Starts tenbin with `arguments` (in `store` when given).
    convenience init(_ arguments: [String], store: ScratchFolder?) throws {
        try self.init(program: Tenbin.binary, (store.map { ["--store", $0.path] } ?? []) + arguments)
    }

    /// Starts `program` with `arguments`.
    init(program: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "TENBIN_STORE")
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let handle = output.fileHandleForReading
        let buffer = buffer
        reader = Thread {
            var pending = Data()
            while true {
                let chunk = handle.nextChunk()
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    buffer.append(line)
                }
            }
            buffer.finished.signal()
        }
        try process.start()
        deadline = Deadline(process, what: "\(program) \(arguments.joined(separator: " "))")
        reader.start()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// The running tenbin's process id.
    var processIdentifier: Int32 { process.processIdentifier }

    /// The next line, waiting up to `seconds` for it.
    func nextLine(within seconds: Double = 20) throws -> String {
        guard buffer.arrived.wait(timeout: .now() + seconds) == .success else {
            throw WatchTimeout(description: "no line from \(process.executableURL?.lastPathComponent ?? "") within \(seconds) s")
        }
        return buffer.lines.withLock { $0.removeFirst() }
    }

    /// The next line, parsed as a JSON object.
    func nextObject(within seconds: Double = 20) throws -> [String: Any] {
        let line = try nextLine(within: seconds)
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        guard let dictionary = object as? [String: Any] else { throw WatchTimeout(description: "not a JSON object: \(line)") }
        return dictionary
    }

    /// Sends SIGINT and waits for the process to end.
    func interrupt() throws -> (status: Int32, stderr: String, unreadLines: [String]) {
        kill(process.processIdentifier, SIGINT)
        return try waitForExit()
    }

    /// Kills the process and waits for it (curl started from the test process was seen to
    /// ignore SIGINT and SIGTERM).
    func killNow() {
        kill(process.processIdentifier, SIGKILL)
        process.waitForExit()
    }

    /// Waits for the process to end by itself (its deadline ends one that hangs).
    func waitForExit() throws -> (status: Int32, stderr: String, unreadLines: [String]) {
        process.waitForExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        _ = buffer.finished.wait(timeout: .now() + 10)  // the pipe closes with the process; a late reader only means fewer lines
        // A process the deadline killed is reported with what it printed after the lines read.
        try deadline?.check(output: (buffer.lines.withLock { $0 } + (stderr.isEmpty ? [] : ["stderr: " + stderr])).joined(separator: "\n"))
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return (status, stderr, buffer.lines.withLock { $0 })
    }
}

/// Lines read so far, and a semaphore signalled once per line. The mutex guards the lines,
/// which is what makes the class `Sendable`.
final class LineBuffer: Sendable {
    let lines = Locked<[String]>([])
    let arrived = DispatchSemaphore(value: 0)
    /// Signalled when the output reached its end.
    let finished = DispatchSemaphore(value: 0)

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
        arrived.signal()
    }
}

/// A detached tmux session running one command on a 100×12 terminal.
struct Terminal {
    static let available = FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")

    let server = "tenbin-watch-\(UUID().uuidString.prefix(8))"
    let statusFile: String

    /// Starts `command` in a new session; its exit status is written to a file when it ends.
    init(command: String, folder: ScratchFolder) throws {
        statusFile = "\(folder.path)/status"
        // The server this starts outlives the call: it must not inherit a pipe read to its end.
        try tmux(
            ["new-session", "-d", "-x", "100", "-y", "12", "echo before watch; \(command); echo $? > \(statusFile); sleep 60"],
            capture: false)
    }

    /// Runs tmux on this test's server and returns what it printed. Spawned and reaped by hand:
    /// Foundation's `Process` may miss the exit of a tmux client that started a server.
    @discardableResult
    func tmux(_ arguments: [String], capture: Bool = true) throws -> String {
        let outputPath = "\(statusFile).tmux-\(UUID().uuidString.prefix(8))"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, capture ? outputPath : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = (["/usr/bin/tmux", "-L", server] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        // The test's thread blocks most signals and a child inherits that mask: a tmux server
        // started with it would never see its panes exit or its kill-server. Start it clean.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let code = posix_spawn(&pid, "/usr/bin/tmux", &actions, &attributes, argv, envp)
        guard code == 0 else { throw WatchTimeout(description: "cannot start tmux: \(String(cString: strerror(code)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return capture ? ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "") : ""
    }

    func send(_ keys: String) throws { try tmux(["send-keys", keys]) }

    /// The screen once `condition` holds, checked every 50 ms for up to 20 s.
    func waitForScreen(_ condition: (String) -> Bool) throws -> String {
        var screen = ""
        for _ in 0..<400 {
            screen = try tmux(["capture-pane", "-p"])
            if condition(screen) { return screen }
            usleep(50_000)
        }
        throw WatchTimeout(description: "the terminal never showed what was expected; it shows:\n\(screen)")
    }

    /// The command's exit status, once it has ended.
    func waitForStatus() throws -> String {
        for _ in 0..<400 {
            if let text = try? String(contentsOfFile: statusFile, encoding: .utf8), text.hasSuffix("\n") {
                return text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            usleep(50_000)
        }
        throw WatchTimeout(description: "the command in the terminal never ended")
    }

    func close() {
        _ = try? tmux(["kill-server"])  // the session may already be gone
    }
}

struct WatchTimeout: Error, CustomStringConvertible {
    let description: String
}
