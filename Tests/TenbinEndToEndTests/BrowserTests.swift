import Foundation
import TestProcesses
import Testing

/// The web page in a real browser: a real `tenbin serve` on a free loopback port over a store
/// holding the sample posters, driven by headless chromium through selenium
/// (Tests/Browser/board_test.py). Its screenshot and logs land in the test output folder.
@Suite(.ownThreads, .serialized) struct BrowserTests {
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

    /// What one run of the browser script left behind.
    struct Outcome: Sendable {
        let importStatus: Int32
        let importErrors: String
        let scriptStatus: Int32
        let transcript: String
        let screenshotSaved: Bool
        let serverStatus: Int32
    }

    @Test(.enabled(if: canRun, "chromium, chromium-driver or python3-selenium is not installed"))
    func theBoardWorksInARealBrowser() async throws {
        try await Self.expectScriptPasses(output: Self.outputFolder, script: "board_test.py", screenshot: "board-phone.png")
    }

    /// Runs `script` through ``runBrowser(output:script:screenshot:serve:arguments:)`` and
    /// expects it to pass, `screenshot` saved and the server stopped cleanly. The run blocks for
    /// a minute or two (processes, a browser): on a thread of its own, so it never holds one of
    /// the few threads the other tests' tasks run on.
    static func expectScriptPasses(output: String, script: String, screenshot: String, serve: [String] = []) async throws {
        #expect(missing.isEmpty, "missing under CI: \(missing.joined(separator: ", "))")
        guard missing.isEmpty else { return }
        let outcome = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Outcome, any Error>) in
            Thread {
                continuation.resume(with: Result { try runBrowser(output: output, script: script, screenshot: screenshot, serve: serve) })
            }.start()
        }
        try #require(outcome.importStatus == 0, "import failed: \(outcome.importErrors)")
        #expect(outcome.scriptStatus == 0, "the browser test failed (output in \(output)):\n\(outcome.transcript)")
        #expect(outcome.screenshotSaved, "no \(screenshot) in \(output)")
        #expect(outcome.serverStatus == 0, "tenbin serve did not stop cleanly; its log is in \(output)/server.log")
    }

    /// Fills a store with the sample posters, serves it, runs `script` (in Tests/Browser) against
    /// it and stops the server; its log, the script's transcript and screenshots go to `output`,
    /// where `screenshot` is looked for. `serve` and `arguments` are added to the server's and
    /// the script's arguments.
    static func runBrowser(
        output: String, script name: String = "board_test.py", screenshot: String = "board-phone.png", serve: [String] = [],
        arguments: [String] = []
    ) throws -> Outcome {
        let store = try ScratchFolder()
        let fixtures = try ScratchFolder()
        try? FileManager.default.removeItem(atPath: output)
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)

        let imported = try Tenbin.run(["import", "\(Tenbin.root)/SampleImages"], store: store.path)
        guard imported.status == 0 else {
            return Outcome(
                importStatus: imported.status, importErrors: imported.stderr, scriptStatus: -1, transcript: "", screenshotSaved: false,
                serverStatus: -1)
        }
        let copies = [
            "SampleImages/01-cats-or-dogs/1-cat.jpg": "left.jpg", "SampleImages/06-ramen-udon/udon.png": "right.png",
            "Tests/Fixtures/hostile/huge-30000x30000.png": "huge.png",
        ]
        for (source, name) in copies {
            try FileManager.default.copyItem(atPath: "\(Tenbin.root)/\(source)", toPath: "\(fixtures.path)/\(name)")
        }
        try Data("meeting notes, not a picture\n".utf8).write(to: URL(fileURLWithPath: "\(fixtures.path)/notes.txt"))

        // The /admin page's checks log in with this token.
        let token = "browser-test-admin-token-0123456789"
        try Data(token.utf8).write(to: URL(fileURLWithPath: "\(fixtures.path)/admin-token"))
        let server = try ServeProcess(["--admin-token-file", "\(fixtures.path)/admin-token"] + serve, store: store.path)
        var stopped: (status: Int32, stderr: String)?
        defer {
            let (_, log) = stopped ?? server.stop()
            try? Data(log.utf8).write(to: URL(fileURLWithPath: "\(output)/server.log"))
        }
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        script.arguments =
            [
                "\(Tenbin.root)/Tests/Browser/\(name)", "--url", "http://127.0.0.1:\(server.port)", "--tenbin", Tenbin.binary,
                "--store", store.path, "--fixtures", fixtures.path, "--out", output,
            ] + arguments
        let transcript = "\(output)/browser.log"
        _ = FileManager.default.createFile(atPath: transcript, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: transcript))
        script.standardOutput = handle
        script.standardError = handle
        script.standardInput = FileHandle.nullDevice
        try script.start()
        script.waitForExit()
        try handle.close()
        stopped = server.stop()
        return Outcome(
            importStatus: 0, importErrors: "", scriptStatus: script.terminationStatus,
            transcript: (try? String(contentsOfFile: transcript, encoding: .utf8)) ?? "",
            screenshotSaved: FileManager.default.fileExists(atPath: "\(output)/\(screenshot)"), serverStatus: stopped?.status ?? -1)
    }
}
