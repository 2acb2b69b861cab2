import Foundation
import Testing

/// A poster's own page (`/p/ID`) in a real browser, with JavaScript on (live counts, Share) and
/// off (the vote form): Tests/Browser/poster_page_test.py against a real `tenbin serve`, run
/// as ``BrowserTests`` runs the board's script. Its screenshot and logs land in the test
/// output folder's `browser-poster`.
@Suite(.ownThreads, .serialized) struct PosterPageBrowserTests {
    @Test(.enabled(if: BrowserTests.canRun, "chromium, chromium-driver or python3-selenium is not installed"))
    func aPosterPageWorksInARealBrowserWithAndWithoutJavaScript() async throws {
        try await BrowserTests.expectScriptPasses(
            output: BrowserTests.outputFolder + "-poster", script: "poster_page_test.py", screenshot: "poster-phone.png")
    }
}
