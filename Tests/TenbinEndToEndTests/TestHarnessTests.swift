import Foundation
import TestProcesses
import Testing

/// The helpers the end-to-end tests wait with fail the test, with what they saw, instead of
/// passing late or hanging the suite.
@Suite(.ownThreads, .timeLimit(.minutes(10))) struct TestHarnessTests {
    @Test func aTenbinStillRunningAtItsDeadlineIsKilledAndFailsWithWhatItPrinted() throws {
        let store = try ScratchFolder()
        // `watch` never ends on its own: it stands in for a hung tenbin.
        let timeout = try #require(throws: ProcessTimeout.self) { try Tenbin.run(["watch", "--json"], store: store.path, deadline: 3) }
        #expect(timeout.description.hasPrefix("tenbin watch --json was still running after 3 s and was killed; it had printed:\n"))
        #expect(timeout.description.contains(#"{"type": "snapshot", "posters": []}"#))
    }

    @Test(.enabled(if: TmuxSession.isAvailable, "needs tmux"))
    func aScreenThatNeverAppearsFailsTheWaitWithTheScreenSeen() throws {
        let tmux = try TmuxSession("echo hello from the pane; sleep 30")
        try tmux.waitForScreen { $0.contains("hello from the pane") }
        let timeout = try #require(throws: WaitTimeout.self) {
            try tmux.waitForScreen(seconds: 0.5, "a screen that never comes") { $0.contains("never shown") }
        }
        #expect(timeout.description.hasPrefix("waited 0 s for a screen that never comes; saw:\n"))
        #expect(timeout.description.contains("hello from the pane"))
    }

    @Test func endToEndTestsRunOnTheirOwnThreadsNotTheSharedPool() async throws {
        // A blocking test and a task it starts (a child task inherits the preference).
        #expect(Self.onOwnThread())
        async let child = Self.onOwnThread()
        #expect(await child)
    }

    private static func onOwnThread() -> Bool { EndToEndThreads.shared.isCurrent }

    @Test func aPipeMadeNonBlockingIsWaitedOnNotTrappedOn() throws {
        let pipe = Pipe()
        let reader = pipe.fileHandleForReading
        _ = fcntl(reader.fileDescriptor, F_SETFL, O_NONBLOCK)
        Thread {
            Thread.sleep(forTimeInterval: 0.2)
            pipe.fileHandleForWriting.write(Data("late".utf8))
            try? pipe.fileHandleForWriting.close()
        }.start()
        // Foundation's availableData would trap on the EAGAIN the first read gets.
        #expect(reader.nextChunk() == Data("late".utf8))
        #expect(reader.nextChunk().isEmpty)
    }

    @Test func aFileThatNeverAppearsFailsTheWait() throws {
        let folder = try ScratchFolder()
        let timeout = try #require(throws: WaitTimeout.self) { try waitForFile("\(folder.path)/status", seconds: 0.2) }
        #expect(timeout.description.hasSuffix("saw:\nno such file"))
    }

    @Test func childrenAreStartedAndAwaitedWithoutARunLoopOnTheTestsThread() throws {
        // Foundation's `run()` and `waitUntilExit()` give the calling thread a run loop, which a
        // Dispatch worker finalises as it ends, after ThreadSanitizer let go of the thread: the
        // crash that ended `make sanitize` runs (ChildProcesses.swift). Every test goes through
        // `start()` and `waitForExit()`, checked here in the sources of every test target.
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let files = try #require(FileManager.default.enumerator(atPath: tests.path)).compactMap { $0 as? String }.filter {
            $0.hasSuffix(".swift") && !$0.hasSuffix("ChildProcesses.swift") && !$0.hasSuffix("TestHarnessTests.swift")
        }
        #expect(files.count > 50)
        var offenders: [String] = []
        for file in files {
            let text = try String(contentsOfFile: "\(tests.path)/\(file)", encoding: .utf8)
            // Names bound to a Process in this file, then any of them run directly.
            let names = text.matches(of: /(?:let|var) (\w+) = Process\(\)/).map { String($0.1) }
            if text.contains("waitUntilExit(") || names.contains(where: { text.contains("\($0).run()") }) || text.contains("Process.run(") {
                offenders.append(file)
            }
        }
        #expect(offenders == [], "use Process.start() and waitForExit() (TestProcesses)")

        // And the two work: a child's status is there once waited for, and a failure to start
        // is thrown to the caller.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments = ["-c", "sleep 0.2; exit 3"]
        try child.start()
        child.waitForExit()
        #expect(!child.isRunning && child.terminationStatus == 3)
        let missing = Process()
        missing.executableURL = URL(fileURLWithPath: "/nonexistent/tenbin-test")
        #expect(throws: (any Error).self) { try missing.start() }
    }
}
