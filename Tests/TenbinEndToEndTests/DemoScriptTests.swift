import Foundation
import Testing

/// `make demo` (scripts/demo.sh) may be run again: the second run adds no poster and no vote.
@Suite(.ownThreads) struct DemoScriptTests {
    static func demo(store: String) throws -> (status: Int32, stdout: String, stderr: String) {
        try Shell.capture(["/usr/bin/env", "TENBIN_STORE=\(store)", "NO_COLOR=1", "\(Tenbin.root)/scripts/demo.sh", Tenbin.binary])
    }

    @Test func runningTheDemoTwiceAddsNothingTheSecondTime() throws {
        let folder = try ScratchFolder()
        let store = "\(folder.path)/store"
        let first = try Self.demo(store: store)
        #expect(first.status == 0, "\(first.stderr)")
        let before = try Tenbin.run(["list", "--json", "--limit", "100"], store: store).stdout
        #expect(before.contains(#""good1": 0, "good2": 0"#) == false, "the demo voted on every poster it shows")
        let second = try Self.demo(store: store)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("Imported 0 posters, skipped 10 already on the board; nothing failed."))
        let after = try Tenbin.run(["list", "--json", "--limit", "100"], store: store).stdout
        #expect(after == before, "no vote doubled")
    }
}
