import Foundation
import TestProcesses

/// A child started in the background, its standard output and error collected together,
/// and killed at its deadline so a hung child fails its test instead of hanging the suite.
final class RunningProcess {
    let process = Process()
    private let output = Pipe()
    private let deadline: Deadline

    /// Starts `arguments[0]` (an absolute path) with the rest as its arguments.
    init(_ arguments: [String], environment: [String: String]? = nil, seconds: Double = Deadline.standard) throws {
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        if let environment { process.environment = environment }
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.start()
        deadline = Deadline(process, what: arguments.map { ($0 as NSString).lastPathComponent }.joined(separator: " "), seconds: seconds)
    }

    /// Reads the output to its end and waits for the process; throws when the deadline killed it.
    func finish() throws -> String {
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitForExit()
        try deadline.check(output: text)
        return text
    }

    /// Sends SIGTERM.
    func terminate() {
        process.terminate()
    }

    var terminationStatus: Int32 { process.terminationStatus }
}
