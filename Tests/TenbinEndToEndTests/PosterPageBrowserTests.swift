import Foundation
import Testing

/// A poster's own page (`/p/ID`) in a real browser, with JavaScript on (live counts, Share) and
/// off (the vote form): Tests/Browser/poster_page_test.py against a real `tenbin serve`, run
/// as ``BrowserTests`` runs the board's script. Its screenshot and logs land in the test
/// output folder's `browser-poster`.
@Suite(.ownThreads, .serialized) struct PosterPageBrowserTests {
    @Test(.enabled(if: BrowserTests.canRun, "chromium, chromium-driver or python3-selenium is not installed"))
    func aPosterPageWorksInARealBrowserWithAndWithoutJavaScript() async throws {
        #expect(BrowserTests.missing.isEmpty, "missing under CI: \(BrowserTests.missing.joined(separator: ", "))")
        guard BrowserTests.missing.isEmpty else { return }
        let output = BrowserTests.outputFolder + "-poster"
        // Blocks for a minute (processes, a browser): on a thread of its own, as BrowserTests does.
        let outcome = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<BrowserTests.Outcome, any Error>) in
            Thread {
                continuation.resume(
                    with: Result {
                        try BrowserTests.runBrowser(output: output, script: "poster_page_test.py", screenshot: "poster-phone.png")
                    })
            }.start()
        }
        try #require(outcome.importStatus == 0, "import failed: \(outcome.importErrors)")
        #expect(outcome.scriptStatus == 0, "the browser test failed (output in \(output)):\n\(outcome.transcript)")
        #expect(outcome.screenshotSaved, "no poster-phone.png in \(output)")
        #expect(outcome.serverStatus == 0, "tenbin serve did not stop cleanly; its log is in \(output)/server.log")
    }
}
