import Foundation
import Testing

/// How failures end a run: one `Error:` line, the command line's own hint for the error's
/// kind, and the documented exit status.
@Suite(.ownThreads, .timeLimit(.minutes(10))) struct ExitStatusTests {
    static let images = [Tenbin.root + "/SampleImages/01-cats-or-dogs/1-cat.jpg", Tenbin.root + "/SampleImages/01-cats-or-dogs/2-dog.jpg"]

    @Test func aBlobFileMissingFromTheStoreIsDamageAndTheHintSaysToRunCheck() throws {
        let store = try ScratchFolder()
        let post = try Tenbin.run(["post", "--json"] + Self.images, store: store.path)
        #expect(post.status == 0)
        let blob = try #require(store.files().first { $0.hasPrefix("blobs/") })
        try FileManager.default.removeItem(atPath: "\(store.path)/\(blob)")
        let output = try ScratchFolder()
        let runs = [
            try Tenbin.run(["image", "1", "1", "-o", output.path + "/one"], store: store.path),
            try Tenbin.run(["image", "1", "2", "-o", output.path + "/two"], store: store.path),
        ]
        let failed = try #require(runs.first { $0.status != 0 }, "one of the two images is gone")
        #expect(failed.status == 1)
        let hint = "(run 'tenbin check' to examine the store)"
        #expect(failed.stderr == "Error: \(store.path)/\(blob): cannot read: No such file or directory \(hint)\n")
    }

    @Test func aBadUploadIsOneLineWithoutAHintAndExitsOne() throws {
        let store = try ScratchFolder()
        let run = try Tenbin.run(["post", "/nonexistent.jpg", Self.images[0]], store: store.path)
        #expect(run.status == 1)
        #expect(run.stderr == "Error: /nonexistent.jpg: cannot be read: No such file or directory\n")
    }

    @Test func aUsageErrorExits64WithTheUsageLine() throws {
        let run = try Tenbin.run(["vote", "1"])
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("Error: missing 1|2\nUsage: tenbin vote ID 1|2"))
    }
}
