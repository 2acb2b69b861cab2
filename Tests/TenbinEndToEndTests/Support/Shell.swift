import Foundation

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
    static func collect(_ process: Process, what: String, stdin: Data? = nil, seconds: Double = Deadline.standard) throws
        -> (status: Int32, stdout: Data, stderr: Data)
    {
        let out = Pipe()
        let err = Pipe()
        let input = stdin.map { _ in Pipe() }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input ?? FileHandle.nullDevice
        try process.run()
        let deadline = Deadline(process, what: what, seconds: seconds)
        if let input, let stdin {
            // tenbin may stop reading early (an input over a limit): the write then fails with
            // EPIPE, which must neither kill the test runner nor fail the run.
            _ = Tenbin.ignoreBrokenPipes
            try? input.fileHandleForWriting.write(contentsOf: stdin)
            try? input.fileHandleForWriting.close()
        }
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        try deadline.check(output: String(decoding: outData, as: UTF8.self) + String(decoding: errData, as: UTF8.self))
        return (process.terminationStatus, outData, errData)
    }
}
