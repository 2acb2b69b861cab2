import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Running and timing whole processes.
enum Shell {
    /// What one process run cost.
    struct Measurement {
        /// Wall-clock seconds.
        let seconds: Double
        /// User and system CPU seconds of the process and the children it waited for.
        var cpuSeconds = 0.0
        /// Peak resident memory in bytes (the largest of the process and its children).
        let peakRSS: Int
        let status: Int32
    }

    /// Runs a program (looked up on PATH) and throws when it fails.
    @discardableResult
    static func run(_ arguments: String...) throws -> Measurement {
        let measurement = try measure(arguments)
        guard measurement.status == 0 else {
            throw BenchError("\(arguments.joined(separator: " ")) exited \(measurement.status)")
        }
        return measurement
    }

    /// Runs `arguments` (the program's path first) with standard error discarded, and returns
    /// its exit status and standard output.
    static func output(_ arguments: [String]) throws -> (status: Int32, text: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Runs `sh -c script` and measures it.
    static func shell(_ script: String) throws -> Measurement {
        try measure(["/bin/sh", "-c", script])
    }

    /// Spawns `arguments` with stdout and stderr to /dev/null and waits, measuring wall time
    /// and peak RSS.
    ///
    /// The peak comes from GNU time (`/usr/bin/time -f %M`), not from this process's own
    /// wait4: Linux records the spawning process's memory high-water mark in a child that
    /// posix_spawn execs, so wait4 would report at least this benchmark's own size.
    static func measure(_ arguments: [String], environment: [String: String]? = nil) throws -> Measurement {
        let report = "\(NSTemporaryDirectory())tenbin-bench-rss-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: report) }
        let timed = try spawn(["/usr/bin/time", "-f", "%M", "-o", report] + arguments, environment: environment)
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        // The last line is the number; a line before it may say the command exited non-zero.
        let kilobytes = text.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        return Measurement(seconds: timed.seconds, cpuSeconds: timed.cpuSeconds, peakRSS: kilobytes * 1024, status: timed.status)
    }

    /// Spawns `arguments` directly, without GNU time in between, measuring wall and CPU time
    /// only (its peak RSS is not the child's own): for processes so short that starting
    /// `time` would be a good part of what is measured.
    static func measureStart(_ arguments: [String]) throws -> Measurement {
        try spawn(arguments, environment: nil)
    }

    /// Spawns `arguments` with stdout and stderr to /dev/null and waits for it.
    private static func spawn(_ arguments: [String], environment: [String: String]?) throws -> Measurement {
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { env.forEach { free($0) } }
        let start = DispatchTime.now().uptimeNanoseconds
        let code = posix_spawnp(&pid, arguments[0], &actions, nil, argv, env)
        guard code == 0 else { throw BenchError("cannot start \(arguments[0]): \(String(cString: strerror(code)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let cpu = [usage.ru_utime, usage.ru_stime].reduce(0.0) { $0 + Double($1.tv_sec) + Double($1.tv_usec) / 1e6 }
        return Measurement(seconds: seconds, cpuSeconds: cpu, peakRSS: usage.ru_maxrss * 1024, status: exitStatus)
    }
}

/// Order statistics over repeated measurements.
struct Samples {
    private(set) var values: [Double] = []

    mutating func add(_ value: Double) { values.append(value) }

    var median: Double { percentile(50) }

    /// The nearest-rank percentile.
    func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[max(0, min(sorted.count - 1, rank))]
    }
}

/// A printed table in Markdown, so it reads in a terminal and pastes into notes.
struct Table {
    let headers: [String]
    private(set) var rows: [[String]] = []

    init(_ headers: String...) {
        self.headers = headers
    }

    init(_ headers: [String]) {
        self.headers = headers
    }

    mutating func add(_ cells: String...) { rows.append(cells) }

    mutating func add(_ cells: [String]) { rows.append(cells) }

    func print() {
        let widths = headers.indices.map { column in
            ([headers[column]] + rows.map { column < $0.count ? $0[column] : "" }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            "| "
                + cells.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }.joined(
                    separator: " | ") + " |"
        }
        Swift.print(line(headers))
        Swift.print("|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|")
        for row in rows { Swift.print(line(row)) }
    }
}

/// Number formatting for tables.
enum Format {
    static func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }
    static func microseconds(_ seconds: Double) -> String { String(format: "%.1f µs", seconds * 1e6) }
    static func ratio(_ value: Double) -> String { String(format: "%.2f×", value) }
    static func mb(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }
    static func number(_ value: Double, digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
}
