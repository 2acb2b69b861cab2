import Foundation
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

    @Test func aFileThatNeverAppearsFailsTheWait() throws {
        let folder = try ScratchFolder()
        let timeout = try #require(throws: WaitTimeout.self) { try waitForFile("\(folder.path)/status", seconds: 0.2) }
        #expect(timeout.description.hasSuffix("saw:\nno such file"))
    }
}
