import Foundation
import TenbinKit
import TestProcesses
import Testing

/// The end-to-end tests of `tenbin serve`'s requests, one at a time: each starts a server
/// (some post images, open thousands of connections or vote from many threads), and the
/// machine's few cores are shared with the rest of the suite.
@Suite(.ownThreads, .serialized) struct ServeEndToEndTests {}

/// The end-to-end tests of `tenbin serve` as a daemon (restarts, drains, its database gone
/// and back, replicas, the operator's endpoints), one at a time like ``ServeEndToEndTests``
/// and beside them: one chain of both was the last suite to end, on one core of two for the
/// run's last minute.
@Suite(.ownThreads, .serialized) struct ServeDaemonEndToEndTests {}

/// A `tenbin serve` running on a free loopback port for one test, over its own scratch store
/// (or a given one). Stopped (SIGTERM, then SIGKILL if it hangs) when released.
final class ServeProcess: @unchecked Sendable {
    // `errorText` is appended by the reading thread and read by the test under `lock`.
    let store: String
    let scratch: ScratchFolder?
    let process = Process()
    let port: UInt16
    /// The first line the server printed: `Serving STORE at http://127.0.0.1:PORT/`.
    let banner: String
    private let errors = ErrorCollector()
    /// Standard error, kept open and never read (for tests of a log nobody reads).
    private var unreadErrors: Pipe?

    /// Starts `tenbin serve --listen 127.0.0.1:0` (or another `listen` address) with `arguments`;
    /// waits (up to 30 s) for the line with its URL. With `readingStandardError` false, standard
    /// error is a pipe that nobody reads: once its buffer is full, every write to it blocks.
    init(_ arguments: [String] = [], store: String? = nil, listen: String = "127.0.0.1:0", readingStandardError: Bool = true) throws {
        if let store {
            self.store = store
            scratch = nil
        } else {
            let folder = try ScratchFolder()
            scratch = folder
            self.store = folder.path + "/store"
        }
        process.executableURL = URL(fileURLWithPath: Tenbin.binary)
        process.arguments = ["--store", self.store, "serve", "--listen", listen] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "TENBIN_STORE")
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.start()
        if readingStandardError { errors.collect(from: err.fileHandleForReading) } else { unreadErrors = err }
        // The first stdout line names the URL: "Serving STORE at http://127.0.0.1:PORT/".
        // Pipes are read on threads of their own, never on dispatch's or Swift concurrency's few
        // worker threads, which also run the tests: a reader blocked for a server's whole life
        // there would starve them.
        let firstLine = DispatchSemaphore(value: 0)
        let lineRead = Locked(Data())
        Thread {
            var line = Data()
            while !line.contains(0x0A) {
                let chunk = out.fileHandleForReading.nextChunk()
                if chunk.isEmpty { break }
                line.append(chunk)
            }
            lineRead.withLock { $0 = line }
            firstLine.signal()
        }.start()
        let line = firstLine.wait(timeout: .now() + 30) == .success ? lineRead.withLock { $0 } : Data()
        guard let text = String(data: line, encoding: .utf8), let range = text.range(of: "http://127.0.0.1:"),
            let port = UInt16(text[range.upperBound...].prefix { $0.isNumber })
        else {
            process.terminate()
            process.waitForExit()
            throw ServeError("tenbin serve did not print its URL: \(String(decoding: line, as: UTF8.self))")
        }
        self.port = port
        banner = String(text.prefix { $0 != "\n" })
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitForExit()
        }
    }

    /// What the server wrote to standard error so far.
    var stderr: String { errors.text }

    /// A new connection to the server, from `source` when given (see ``HTTPConnection``).
    func connect(from source: String? = nil) throws -> HTTPConnection { try HTTPConnection(port: port, from: source) }

    /// One request on a fresh connection.
    func request(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) throws -> HTTPReply {
        let connection = try connect()
        defer { connection.close() }
        return try connection.request(method, path, headers: headers, body: body)
    }

    /// `POST path` with a JSON body.
    func postJSON(_ path: String, _ json: String, headers: [(String, String)] = []) throws -> HTTPReply {
        try request("POST", path, headers: [("Content-Type", "application/json")] + headers, body: Array(json.utf8))
    }

    /// Sends SIGTERM and waits (up to 40 s) for the exit status; the full standard error.
    func stop(signal: Int32 = SIGTERM) -> (status: Int32, stderr: String) {
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(40)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitForExit()
            return (-1, stderr)
        }
        process.waitForExit()
        if unreadErrors == nil { errors.waitForEnd() }
        return (process.terminationStatus, stderr)
    }
}

/// Standard error read on a thread of its own, so the server never blocks on a full pipe.
final class ErrorCollector: @unchecked Sendable {
    // `data` is appended by the reading thread and read by the test, both under `lock`.
    private let lock = NSLock()
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    func collect(from handle: FileHandle) {
        Thread { [self] in
            while true {
                let chunk = handle.nextChunk()
                if chunk.isEmpty { break }
                lock.lock()
                data.append(chunk)
                lock.unlock()
            }
            done.signal()
        }.start()
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }

    func waitForEnd() { _ = done.wait(timeout: .now() + 5) }
}

struct ServeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
