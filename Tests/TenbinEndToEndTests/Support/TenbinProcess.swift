import Foundation

/// Runs the built `tenbin` binary the way a user does and captures what they would see.
struct TenbinRun {
    let status: Int32
    let stdout: String
    let stderr: String
    let stdoutBytes: Data
}

enum Tenbin {
    /// Turns SIGPIPE off in the test runner once, so writing to a child that left fails
    /// instead of killing the runner.
    static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// The package root, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// `$TENBIN_BIN`, else the `tenbin` built next to the test bundle, else `.build/debug`.
    static let binary: String = {
        if let path = ProcessInfo.processInfo.environment["TENBIN_BIN"] { return path }
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [beside, beside.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("tenbin").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return "\(root)/.build/debug/tenbin"
    }()

    /// Runs tenbin with `arguments`, in `store` when given, and waits for it; a run still going
    /// at its deadline is killed and fails the test with what it had printed.
    @discardableResult
    static func run(
        _ arguments: [String], store: String? = nil, environment: [String: String] = [:], stdin: Data? = nil,
        deadline seconds: Double = Deadline.standard
    ) throws -> TenbinRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = (store.map { ["--store", $0] } ?? []) + arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "TENBIN_STORE")
        env["NO_COLOR"] = "1"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.currentDirectoryURL = URL(fileURLWithPath: root)
        let result = try Shell.collect(process, what: "tenbin \(arguments.joined(separator: " "))", stdin: stdin, seconds: seconds)
        return TenbinRun(
            status: result.status, stdout: String(decoding: result.stdout, as: UTF8.self),
            stderr: String(decoding: result.stderr, as: UTF8.self), stdoutBytes: result.stdout)
    }
}

/// A fresh store folder for one test, removed when the value is released.
final class ScratchFolder {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "tenbin-e2e-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Every file below the folder, relative paths sorted (to prove nothing was left behind).
    func files() -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: path) else { return [] }
        var result: [String] = []
        while let item = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: "\(path)/\(item)", isDirectory: &isDirectory), !isDirectory.boolValue {
                result.append(item)
            }
        }
        return result.sorted()
    }
}

extension Tenbin {
    /// Runs tenbin under an address-space limit (`ulimit -v`, in KiB): any attempt to
    /// allocate past it fails, so a run that succeeds, or fails cleanly, stayed under it.
    static func runLimited(kilobytes: Int, _ arguments: [String]) throws -> TenbinRun {
        let script = "ulimit -v \(kilobytes) && exec \"$0\" \"$@\""
        let run = try Shell.capture(["/bin/sh", "-c", script, binary] + arguments)
        return TenbinRun(status: run.status, stdout: run.stdout, stderr: run.stderr, stdoutBytes: Data(run.stdout.utf8))
    }
}
