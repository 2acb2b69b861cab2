import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The web page in a real browser: a real `tenbin serve` on a free loopback port over a store
/// holding the sample posters, driven by headless chromium through selenium
/// (Tests/Browser/board_test.py). Its screenshot and logs land in the test output folder.
@Suite(.serialized) struct BrowserTests {
    /// The programs the browser test needs (Debian `chromium`, `chromium-driver`,
    /// `python3-selenium`); `make test` installs them.
    static let missing: [String] = {
        var missing: [String] = []
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") { missing.append("chromium") }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver") { missing.append("chromium-driver") }
        if !FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/selenium") { missing.append("python3-selenium") }
        return missing
    }()

    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// Runs unless the browser is missing outside CI; under CI=true it always runs (and fails
    /// when the browser is missing). Outside CI a missing browser is said loudly on stderr.
    static let canRun: Bool = {
        if missing.isEmpty || isCI { return true }
        FileHandle.standardError.write(
            Data(
                """

                ************************************************************************
                * BROWSER TESTS SKIPPED: \(missing.joined(separator: ", ")) not installed.
                * Install with: apt-get install --no-install-recommends chromium chromium-driver python3-selenium fonts-ipafont-gothic
                ************************************************************************

                """.utf8))
        return false
    }()

    /// `$TENBIN_TEST_OUTPUT/browser`, else `.build/test-output/browser` in the package.
    static let outputFolder: String = {
        let base = ProcessInfo.processInfo.environment["TENBIN_TEST_OUTPUT"] ?? "\(Tenbin.root)/.build/test-output"
        return base + "/browser"
    }()

    @Test(.enabled(if: canRun, "chromium, chromium-driver or python3-selenium is not installed"))
    func theBoardWorksInARealBrowser() throws {
        #expect(Self.missing.isEmpty, "missing under CI: \(Self.missing.joined(separator: ", "))")
        guard Self.missing.isEmpty else { return }
        let store = try ScratchFolder()
        let fixtures = try ScratchFolder()
        let output = Self.outputFolder
        try? FileManager.default.removeItem(atPath: output)
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)

        let imported = try Tenbin.run(["import", "\(Tenbin.root)/SampleImages"], store: store.path)
        try #require(imported.status == 0, "import failed: \(imported.stderr)")
        let copies = [
            "SampleImages/01-cats-or-dogs/1-cat.jpg": "left.jpg", "SampleImages/06-ramen-udon/udon.png": "right.png",
            "Tests/Fixtures/hostile/huge-30000x30000.png": "huge.png",
        ]
        for (source, name) in copies {
            try FileManager.default.copyItem(atPath: "\(Tenbin.root)/\(source)", toPath: "\(fixtures.path)/\(name)")
        }
        try Data("meeting notes, not a picture\n".utf8).write(to: URL(fileURLWithPath: "\(fixtures.path)/notes.txt"))

        let server = try ServerProcess(store: store.path, log: "\(output)/server.log")
        defer { server.stop() }

        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        script.arguments = [
            "\(Tenbin.root)/Tests/Browser/board_test.py", "--url", server.url, "--tenbin", Tenbin.binary,
            "--store", store.path, "--fixtures", fixtures.path, "--out", output,
        ]
        let transcript = "\(output)/browser.log"
        _ = FileManager.default.createFile(atPath: transcript, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: transcript))
        script.standardOutput = handle
        script.standardError = handle
        script.standardInput = FileHandle.nullDevice
        try script.run()
        script.waitUntilExit()
        try handle.close()
        let log = (try? String(contentsOfFile: transcript, encoding: .utf8)) ?? ""
        #expect(script.terminationStatus == 0, "the browser test failed (output in \(output)):\n\(log)")
        #expect(FileManager.default.fileExists(atPath: "\(output)/board-phone.png"))
        #expect(server.stop() == 0, "tenbin serve did not stop cleanly; its log is in \(output)/server.log")
    }
}

/// `tenbin serve` on a free loopback port, logging to a file, stopped with SIGTERM.
final class ServerProcess {
    let process = Process()
    let url: String
    private var status: Int32?

    init(store: String, log: String, extraArguments: [String] = []) throws {
        let port = try Self.freePort()
        url = "http://127.0.0.1:\(port)"
        process.executableURL = URL(fileURLWithPath: Tenbin.binary)
        process.arguments = ["--store", store, "serve", "--listen", "127.0.0.1:\(port)"] + extraArguments
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "TENBIN_STORE")
        process.environment = environment
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try handle.close()
        // Up when it accepts a connection; a generous bound for a loaded machine.
        let deadline = Date().addingTimeInterval(30)
        while !Self.accepts(port: port) {
            guard process.isRunning, Date() < deadline else {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                stop()
                throw ServerError(message: "tenbin serve did not start listening on \(url): \(text)")
            }
            usleep(50_000)
        }
    }

    /// Sends SIGTERM once and waits for the exit; returns the exit status.
    @discardableResult
    func stop() -> Int32 {
        if let status { return status }
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        let status = process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
        self.status = status
        return status
    }

    struct ServerError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// A port nothing listens on now: the kernel's choice for a socket bound to port 0.
    static func freePort() throws -> UInt16 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ServerError(message: "socket() failed: errno \(errno)") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw ServerError(message: "cannot bind a loopback port: errno \(errno)") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(port: UInt16) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
