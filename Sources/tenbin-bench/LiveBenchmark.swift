import Foundation
import TenbinKit
import TenbinSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// `tenbin watch`: the CPU an idle watcher burns, and how soon a vote committed in another
/// process reaches its output. The reference for CPU is a naive poller (a shell loop running
/// `sqlite3 DB "PRAGMA data_version"` at the same interval); for latency, the poll interval.
enum LiveBenchmark {
    static let idleSeconds = 20.0
    static let votes = 50

    static func run(_ context: BenchContext) throws {
        let store = try context.freshFolder("live-store")
        let photos = try context.photos(count: 2, width: 640, height: 480)
        let board = try Board(folder: store, create: true)
        defer { board.close() }
        for index in 0..<20 {
            _ = try board.post(PosterDraft(image1: .file(photos[0]), image2: .file(photos[1]), contents: "poster \(index)"))
        }
        let watcher = try Child([context.tenbin, "--store", store, "watch", "--json", "--sort", "popular"])
        guard try watcher.nextLine(within: 10).contains("\"snapshot\"") else { throw BenchError("tenbin watch printed no snapshot") }

        // Idle: nothing commits while the watcher polls.
        let idle = try cpuSeconds(of: watcher.pid, over: idleSeconds)
        let rss = residentBytes(of: watcher.pid)

        // Latency: commit a vote here (another process to the watcher), time until its line.
        var latencies = Samples()
        var random = SystemRandomNumberGenerator()
        for _ in 0..<votes {
            // A random pause puts the commit at a random point of the poll cycle.
            usleep(UInt32.random(in: 20_000...120_000, using: &random))
            let id = Int64.random(in: 1...20, using: &random)
            _ = try board.vote(id: id, side: .first)
            let committed = DispatchTime.now().uptimeNanoseconds
            while true {
                let line = try watcher.nextLine(within: 5)
                if line.contains("\"type\": \"modified\", \"id\": \(id),") { break }
            }
            latencies.add(Double(DispatchTime.now().uptimeNanoseconds - committed) / 1e9)
        }
        let status = watcher.interrupt()

        let database = "\(store)/tenbin.sqlite"
        let poller = try Child(["/bin/sh", "-c", "while :; do sqlite3 '\(database)' 'PRAGMA data_version' > /dev/null; sleep 0.05; done"])
        let naive = try cpuSeconds(of: poller.pid, over: 10, includingChildren: true)
        // SIGTERM, not SIGINT: sqlite3 catches SIGINT, and a shell whose foreground child
        // survived it carries on looping (the bench once waited for it for 13 minutes).
        _ = poller.stop(signal: SIGTERM)

        var cpu = Table("idle for \(Int(idleSeconds)) s", "CPU per minute", "share of one core", "ratio")
        cpu.add("sqlite3 PRAGMA data_version every 50 ms (shell loop)", Format.ms(naive * 60), percent(naive), Format.ratio(1))
        cpu.add(
            "tenbin watch --json (woken by commits, ticks every 50 ms)", Format.ms(idle * 60), percent(idle), Format.ratio(idle / naive))
        cpu.print()
        print("\nCPU time from /proc/PID/schedstat (the loop's from /proc/PID/stat, children included). Aim: under 1% of a core.")
        print("Idle watcher resident memory: \(Format.mb(rss)).\n")

        var latency = Table("vote commit → change line", "median", "p90", "p99", "max")
        latency.add(
            "\(votes) votes, 20-poster popular feed", Format.ms(latencies.median), Format.ms(latencies.percentile(90)),
            Format.ms(latencies.percentile(99)), Format.ms(latencies.percentile(100)))
        latency.add("poll interval (reference)", Format.ms(0.050), "", "", "")
        latency.print()
        print("\nFrom the bench's Board.vote returning to reading the watcher's \"modified\" line. Aim: p99 under 250 ms.")
        print("Ratio median / poll interval: \(Format.ratio(latencies.median / 0.050)). tenbin watch exited \(status) on SIGINT.")
    }

    /// CPU seconds `pid` used per second of wall time over `seconds`.
    static func cpuSeconds(of pid: pid_t, over seconds: Double, includingChildren: Bool = false) throws -> Double {
        let read = { includingChildren ? try statSeconds(of: pid) : try scheduledSeconds(of: pid) }
        let before = try read()
        let start = DispatchTime.now().uptimeNanoseconds
        usleep(UInt32(seconds * 1_000_000))
        let after = try read()
        return (after - before) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    /// Time on a CPU, in nanoseconds precision, of every thread of `pid`.
    static func scheduledSeconds(of pid: pid_t) throws -> Double {
        var total = 0.0
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        for task in tasks {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8)) ?? "0"
            total += Double(text.split(separator: " ").first.flatMap { Double($0) } ?? 0) / 1e9
        }
        return total
    }

    /// utime + stime + cutime + cstime of `pid`, from /proc/PID/stat, in seconds.
    static func statSeconds(of pid: pid_t) throws -> Double {
        let text = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command name (which may contain spaces) start at field 3.
        guard let close = text.lastIndex(of: ")") else { throw BenchError("cannot read /proc/\(pid)/stat") }
        let fields = text[text.index(after: close)...].split(separator: " ")
        let ticks = fields[11...14].compactMap { Double($0) }.reduce(0, +)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func residentBytes(of pid: pid_t) -> Int {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0) * 1024
    }

    static func percent(_ share: Double) -> String { String(format: "%.3f%%", share * 100) }
}

/// A child process whose standard output is read line by line.
final class Child {
    let pid: pid_t
    private let output: Int32
    private var pending: [UInt8] = []

    init(_ arguments: [String]) throws {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw BenchError("cannot make a pipe") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // The child must see SIGINT, whatever this thread blocks.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { env.forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, env)
        close(pipeEnds[1])
        guard code == 0 else { throw BenchError("cannot start \(arguments[0]): \(String(cString: strerror(code)))") }
        self.pid = pid
        self.output = pipeEnds[0]
    }

    deinit {
        close(output)
    }

    /// The next line of output, waiting at most `seconds`.
    func nextLine(within seconds: Double) throws -> String {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { throw BenchError("no output within \(seconds) s") }
            var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32((deadline - now) / 1_000_000) + 1) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = read(output, &buffer, buffer.count)
            if count <= 0 { throw BenchError("the child's output ended") }
            pending += buffer[..<count]
        }
    }

    /// Sends SIGINT and returns the exit status (128 + signal when killed by one).
    func interrupt() -> Int32 {
        stop(signal: SIGINT)
    }

    /// Sends `signal` and waits for the child to end; its exit status (128 + the signal that
    /// ended it).
    func stop(signal: Int32) -> Int32 {
        kill(pid, signal)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
