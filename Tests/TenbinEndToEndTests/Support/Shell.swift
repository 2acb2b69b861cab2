import Foundation
import TenbinKit
import TestProcesses

/// Running helper programs (mount, sh) from tests, and collecting any child's output.
enum Shell {
    @discardableResult
    static func run(_ arguments: String...) throws -> Int32 {
        let result = try capture(arguments)
        guard result.status == 0 else { throw POSIXError(.EPERM) }
        return result.status
    }

    static func capture(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0].hasPrefix("/") ? arguments[0] : "/usr/bin/env")
        process.arguments = arguments[0].hasPrefix("/") ? Array(arguments.dropFirst()) : arguments
        let result = try collect(process, what: arguments.joined(separator: " "))
        return (result.status, String(decoding: result.stdout, as: UTF8.self), String(decoding: result.stderr, as: UTF8.self))
    }

    /// Starts `process` with pipes for its output (and `stdin`, when given, as its input),
    /// reads both to their end at once so a child filling one cannot block on the other, and
    /// waits for it. A process still running after `seconds` is killed and fails the test with
    /// what it had printed.
    /// Turns SIGPIPE off in the test runner once, so writing to a child that left fails
    /// instead of killing the runner.
    static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    static func collect(_ process: Process, what: String, stdin: Data? = nil, seconds: Double = Deadline.standard) throws
        -> (status: Int32, stdout: Data, stderr: Data)
    {
        let out = Pipe()
        let err = Pipe()
        let input = stdin.map { _ in Pipe() }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input ?? FileHandle.nullDevice
        try process.start()
        let deadline = Deadline(process, what: what, seconds: seconds)
        if let input, let stdin {
            // The child may stop reading early (an input over a limit): the write then fails
            // with EPIPE, which must neither kill the test runner nor fail the run.
            _ = ignoreBrokenPipes
            try? input.fileHandleForWriting.write(contentsOf: stdin)
            try? input.fileHandleForWriting.close()
        }
        // Standard error is read on a thread of its own, not a dispatch or Swift concurrency
        // thread: those few threads also run the tests, and a reader blocked for a whole run
        // would starve them.
        let errors = Locked(Data())
        let errorsRead = DispatchSemaphore(value: 0)
        Thread {
            let data = err.fileHandleForReading.readDataToEndOfFile()
            errors.withLock { $0 = data }
            errorsRead.signal()
        }.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        errorsRead.wait()
        let errData = errors.withLock { $0 }
        process.waitForExit()
        try deadline.check(output: String(decoding: outData, as: UTF8.self) + String(decoding: errData, as: UTF8.self))
        return (process.terminationStatus, outData, errData)
    }
}
