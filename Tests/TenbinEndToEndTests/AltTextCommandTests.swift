import Foundation
import Testing

/// `tenbin post --alt1/--alt2`: each image's alt text is stored, shown in `--json` (only when
/// given), and a text over the limit is refused before anything is stored.
@Suite(.ownThreads, .timeLimit(.minutes(10))) struct AltTextCommandTests {
    @Test func altTextsArePostedAndShownInJSONAndTooLongOnesAreRefused() throws {
        let store = try ScratchFolder()
        let posted = try Tenbin.run(
            ["post"] + EditCommandTests.images + ["--text", "どっち？", "--alt1", "A tabby cat", "--alt2", "黒い犬", "--json"],
            store: store.path)
        #expect(posted.status == 0, "\(posted.stderr)")
        #expect(posted.stdout.contains("\"alt1\": \"A tabby cat\", \"alt2\": \"黒い犬\"") || posted.stdout.contains("\"alt2\": \"黒い犬\""))
        let shown = try Tenbin.run(["show", "1", "--json"], store: store.path).stdout
        #expect(shown.contains("\"alt1\": \"A tabby cat\"") && shown.contains("\"alt2\": \"黒い犬\""))
        let plain = try Tenbin.run(["post"] + EditCommandTests.images + ["--json"], store: store.path)
        #expect(plain.status == 0 && !plain.stdout.contains("alt1"), "a poster without alt text keeps the documented shape")
        let long = try Tenbin.run(["post"] + EditCommandTests.images + ["--alt1", String(repeating: "a", count: 1001)], store: store.path)
        #expect(long.status == 1)
        #expect(long.stderr == "Error: the alt text of image1 is longer than 1,000 bytes\n", "\(long.stderr)")
        #expect(try Tenbin.run(["list", "--json"], store: store.path).stdout.matches(of: #/"id": /#).count == 2)
    }
}
