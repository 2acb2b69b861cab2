import Foundation
import Testing

/// Proof of work for posting in a real browser: Tests/Browser/post_proof_test.py against a real
/// `tenbin serve --post-proof 12`, run as ``BrowserTests`` runs the board's script (the worker
/// finds the nonce, the keyboard posts, the status is live, the form without script says why
/// it cannot post). Its screenshot and logs land in the test output folder's `browser-proof`.
@Suite(.ownThreads, .serialized) struct PostProofBrowserTests {
    @Test(.enabled(if: BrowserTests.canRun, "chromium, chromium-driver or python3-selenium is not installed"))
    func postingProvesItsWorkInAWorkerInARealBrowser() async throws {
        try await BrowserTests.expectScriptPasses(
            output: BrowserTests.outputFolder + "-proof", script: "post_proof_test.py", screenshot: "proof-form.png",
            serve: ["--post-proof", "12"])
    }
}
