import Foundation
import TestProcesses
import Testing

/// A program running in its own tmux server (a real pseudo-terminal), driven by keystrokes
/// and read back from the screen, the way a person at a terminal would use it.
final class TmuxSession {
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }

    /// A private server socket, so nothing else's tmux is touched.
    let socket = "tenbin-test-\(UUID().uuidString.prefix(8))"

    /// Starts `command` (run by sh) in a detached session of the given size.
    init(_ command: String, columns: Int = 100, rows: Int = 20) throws {
        try tmux(["new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", command])
    }

    deinit {
        _ = try? tmux(["kill-server"])
    }

    /// Types `text` literally (UTF-8 included).
    func type(_ text: String) throws { try tmux(["send-keys", "-l", text]) }

    /// Presses named keys: "Enter", "Escape", "Down", "Up", "C-c", "BSpace".
    func press(_ keys: String...) throws { try tmux(["send-keys"] + keys) }

    /// The visible screen as text.
    func screen() throws -> String { try tmux(["capture-pane", "-p"]) }

    /// Polls the screen until `condition` holds, for at most `seconds` (a generous bound for a
    /// loaded machine, not a timing assertion), and returns that screen; when time runs out it
    /// throws, failing the test with `what` and the last screen seen.
    @discardableResult
    func waitForScreen(
        seconds: Double = 20, _ what: String = "the expected screen", sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: (String) -> Bool
    ) throws -> String {
        var last = ""
        do {
            return try poll(seconds: seconds, what, seen: { last }) {
                last = try screen()
                return condition(last) ? last : nil
            }
        } catch let timeout as WaitTimeout {
            throw WaitTimeout(description: "\(timeout.description)\n(waiting at \(sourceLocation))")
        }
    }

    /// Runs one tmux command and returns what it printed.
    ///
    /// Tests run in parallel and a spawned process inherits every open descriptor, so a tmux
    /// server could hold another test's pipe open for its whole life and that test's read
    /// would never end. So tmux runs from a shell that first closes every descriptor above 2,
    /// and its output goes to a file rather than a pipe. The test runner's processes also
    /// start with most signals blocked, which tmux would inherit (its `kill-server` signals
    /// itself with SIGTERM, and the program under test would ignore its terminal hanging
    /// up), so perl clears the signal mask before running tmux.
    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        let output = NSTemporaryDirectory() + "tenbin-tmux-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: output, contents: nil)  // if it fails, opening it below throws
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments =
            [
                "-c",
                #"for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done; "#
                    + #"exec /usr/bin/perl -MPOSIX -e 'sigprocmask(SIG_SETMASK, POSIX::SigSet->new) or die; exec @ARGV or die' "#
                    + #"-- /usr/bin/tmux "$@""#,
                "tmux", "-L", socket,
            ] + arguments
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.start()
        let deadline = Deadline(process, what: "tmux \(arguments.joined(separator: " "))", seconds: 60)
        process.waitForExit()
        try deadline.check()
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }
}

/// Waits for a file to be written whole, ending in a newline (a command's exit status written
/// by its shell), and returns its text; throws, failing the test, when it never is.
func waitForFile(_ path: String, seconds: Double = 20) throws -> String {
    try poll(seconds: seconds, "\(path) to be written", seen: { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "no such file" }) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n") else { return nil }
        return text
    }
}
