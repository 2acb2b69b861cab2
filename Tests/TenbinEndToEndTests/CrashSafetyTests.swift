import Foundation
import Testing

@Suite struct CrashSafetyTests {
    @Test func killingPostAtAnyMomentLeavesAStoreThatChecksAndAcceptsTheRerun() throws {
        let store = try ScratchFolder()
        let images = [Tenbin.root + "/SampleImages/03-phone-portrait/a-rotated.jpg", Tenbin.root + "/SampleImages/07-tokyo/tower.JPG"]
        var generator = SystemRandomNumberGenerator()
        for round in 0..<12 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Tenbin.binary)
            process.arguments = ["--store", store.path, "post"] + images
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // From right at start-up to past the end of a typical post.
            usleep(UInt32(round * 15_000 + Int.random(in: 0..<10_000, using: &generator)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let check = try Tenbin.run(["check"], store: store.path)
            #expect(check.status == 0, "after a kill in round \(round): \(check.stderr)")
        }
        #expect(try Tenbin.run(["post"] + images, store: store.path).status == 0)
        #expect(try Tenbin.run(["gc"], store: store.path).status == 0)
        let check = try Tenbin.run(["check"], store: store.path)
        #expect(check.status == 0)
        #expect(!check.stdout.contains("note:"), "gc left no unreferenced blob")
    }
}
