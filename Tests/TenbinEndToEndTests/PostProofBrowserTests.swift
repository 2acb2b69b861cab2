import Foundation
import Testing

/// Proof of work for posting in a real browser: Tests/Browser/post_proof_test.py against a real
/// `tenbin serve --post-proof 12`, run as ``BrowserTests`` runs the board's script (the worker
/// finds the nonce, the keyboard posts, the status is live, the form without script says why
/// it cannot post). Its screenshot and logs land in the test output folder's `browser-proof`.
@Suite(.ownThreads, .serialized) struct PostProofBrowserTests {
    @Test(.enabled(if: BrowserTests.canRun, "chromium, chromium-driver or python3-selenium is not installed"))
    func postingProvesItsWorkInAWorkerInARealBrowser() async throws {
        #expect(BrowserTests.missing.isEmpty, "missing under CI: \(BrowserTests.missing.joined(separator: ", "))")
        guard BrowserTests.missing.isEmpty else { return }
        let output = BrowserTests.outputFolder + "-proof"
        // Blocks for a minute (processes, a browser): on a thread of its own, as BrowserTests does.
        let outcome = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<BrowserTests.Outcome, any Error>) in
            Thread {
                continuation.resume(
                    with: Result {
                        try BrowserTests.runBrowser(
                            output: output, script: "post_proof_test.py", screenshot: "proof-form.png", serve: ["--post-proof", "12"])
                    })
            }.start()
        }
        try #require(outcome.importStatus == 0, "import failed: \(outcome.importErrors)")
        #expect(outcome.scriptStatus == 0, "the browser test failed (output in \(output)):\n\(outcome.transcript)")
        #expect(outcome.screenshotSaved, "no proof-form.png in \(output)")
        #expect(outcome.serverStatus == 0, "tenbin serve did not stop cleanly; its log is in \(output)/server.log")
    }
}
