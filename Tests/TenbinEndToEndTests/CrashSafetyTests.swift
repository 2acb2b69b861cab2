import Foundation
import Testing

/// `kill -9` inside a post leaves a store `tenbin check` passes, and posting again works.
@Suite(.ownThreads, .timeLimit(.minutes(10))) struct CrashSafetyTests {
    @Test func killingPostInsideTheOperationLeavesAStoreThatChecksAndAcceptsTheRerun() throws {
        let store = try ScratchFolder()
        let images = [Tenbin.root + "/SampleImages/03-phone-portrait/a-rotated.jpg", Tenbin.root + "/SampleImages/07-tokyo/tower.JPG"]
        var landed = 0
        var rounds = 0
        // Kills from right at the post's start to 70 ms into it (decoding, encoding, writing
        // blobs, committing), until eight have landed inside the post; a post that finished
        // before its kill does not count.
        while landed < 8 && rounds < 40 {
            let run = try KilledRun.run(
                ["--store", store.path, "post"] + images, markerFile: "\(store.path)/markers-\(rounds)", at: { $0 == "post:begin" },
                delay: Double(rounds % 8) * 0.01)
            if run.landedInside("post") { landed += 1 }
            let check = try Tenbin.run(["check"], store: store.path)
            #expect(check.status == 0, "after a kill in round \(rounds) (markers \(run.markers)): \(check.stderr)")
            rounds += 1
        }
        #expect(landed == 8, "only \(landed) of \(rounds) kills landed inside the post")
        #expect(try Tenbin.run(["post"] + images, store: store.path).status == 0)
        #expect(try Tenbin.run(["gc"], store: store.path).status == 0)
        let check = try Tenbin.run(["check"], store: store.path)
        #expect(check.status == 0)
        #expect(!check.stdout.contains("note:"), "gc left no unreferenced blob")
    }
}
