import Foundation
import TenbinKit
import Testing

/// Kills a child process still running at its deadline, so a hung program fails its test with
/// what it had printed instead of hanging the whole suite (a suite's time limit cannot stop a
/// test blocked reading a pipe or waiting for a process).
final class Deadline: Sendable {
    /// How long one process may run: generous for a loaded machine and for sanitizer builds.
    /// `TENBIN_TEST_DEADLINE` (seconds) overrides it.
    static let standard: Double = ProcessInfo.processInfo.environment["TENBIN_TEST_DEADLINE"].flatMap(Double.init) ?? 240

    private let what: String
    private let seconds: Double
    /// Whether the deadline killed the process, and whether the watch is over. The mutex makes
    /// the class `Sendable`.
    private let state = Locked<(killed: Bool, over: Bool)>((false, false))

    /// Starts watching `process`, which must be running; `what` names it in the failure.
    /// A test waiting for a child on Swift's shared pool stops everything asynchronous in the
    /// test process while it waits (see ``OwnThreads``): such a suite fails here, at once.
    init(_ process: Process, what: String, seconds: Double = Deadline.standard) {
        // (A child started from a thread of the test's own, outside any task, is no test's.)
        if Test.current != nil {
            #expect(EndToEndThreads.shared.isCurrent, "\(what) was started from Swift's shared pool: give its suite .ownThreads")
        }
        self.what = what
        self.seconds = seconds
        let state = state
        let pid = process.processIdentifier
        // The watch holds the process weakly: holding it would keep its pipes open until the
        // deadline (four minutes), and a full run used to pile up 2,000 descriptors that way,
        // which made every later `Process.run` slower (it closes each one in the child) and is
        // where Foundation's `Process.run` was seen to crash.
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak process] in
            state.withLock { state in
                // Once the process has ended (or the test let go of it) its id may belong to
                // another: never kill then.
                guard !state.over, let process, process.isRunning else { return }
                state.killed = true
                kill(pid, SIGKILL)
            }
        }
    }

    deinit {
        state.withLock { $0.over = true }
    }

    /// Ends the watch once the process has exited; throws when the deadline had to kill it,
    /// with what the process had printed.
    func check(output: @autoclosure () -> String = "") throws {
        let killed = state.withLock { state in
            state.over = true
            return state.killed
        }
        if killed { throw ProcessTimeout(what: what, seconds: seconds, output: output()) }
    }
}

/// A process the test had to kill at its deadline.
struct ProcessTimeout: Error, CustomStringConvertible {
    let what: String
    let seconds: Double
    let output: String

    var description: String {
        "\(what) was still running after \(Int(seconds)) s and was killed; it had printed:\n\(output.isEmpty ? "(nothing)" : output)"
    }
}

/// A wait for something the test expects to see, which ran out of time: its description is
/// what was seen instead.
struct WaitTimeout: Error, CustomStringConvertible {
    let description: String
}

/// Polls `probe` every 20 ms until it returns a value, for at most `seconds` (a generous bound
/// for a loaded machine, not a timing assertion); throws with `seen()` when time runs out.
func poll<T>(seconds: Double = 20, _ waitingFor: @autoclosure () -> String, seen: () -> String, _ probe: () throws -> T?) throws -> T {
    let deadline = Date().addingTimeInterval(seconds)
    repeat {
        if let value = try probe() { return value }
        usleep(20_000)
    } while Date() < deadline
    if let value = try probe() { return value }
    throw WaitTimeout(description: "waited \(Int(seconds)) s for \(waitingFor()); saw:\n\(seen())")
}
