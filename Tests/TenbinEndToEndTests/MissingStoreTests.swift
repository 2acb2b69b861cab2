import Foundation
import Testing

/// A reading command on a store that does not exist says, on stderr, which folder it looked at
/// and how to choose another; the board it shows is empty as before.
@Suite(.ownThreads) struct MissingStoreTests {
    /// Runs tenbin in `folder` with only `environment` deciding the store.
    static func run(_ arguments: [String], in folder: String, environment: [String] = []) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try Shell.capture(
            ["/usr/bin/env", "-u", "TENBIN_STORE", "NO_COLOR=1"] + environment
                + ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", folder, Tenbin.binary] + arguments)
    }

    @Test func theDefaultStoreIsNamedWithItsFullPathWhenMissing() throws {
        let home = try ScratchFolder()
        let list = try Self.run(["list"], in: home.path)
        #expect(list.status == 0)
        #expect(list.stdout == "No posters.\n")
        #expect(
            list.stderr
                == "note: no store at \(home.path)/Storage (the default, ./Storage in the current folder); choose one with --store DIR or TENBIN_STORE.\n"
        )
        let vote = try Self.run(["vote", "1", "1"], in: home.path)
        #expect(vote.status == 1)
        #expect(vote.stderr.hasPrefix("note: no store at \(home.path)/Storage "))
        #expect(home.files().isEmpty, "reading created nothing")
    }

    @Test func theNoteSaysWhereAStoreOptionOrVariableCameFrom() throws {
        let home = try ScratchFolder()
        let option = try Self.run(["--store", "/nonexistent/board", "search", "猫"], in: home.path)
        #expect(option.stderr.hasPrefix("note: no store at /nonexistent/board (from --store); "))
        let variable = try Self.run(["list", "--json"], in: home.path, environment: ["TENBIN_STORE=elsewhere"])
        #expect(variable.stdout == "[]\n")
        #expect(variable.stderr.hasPrefix("note: no store at \(home.path)/elsewhere (from TENBIN_STORE); "))
    }

    @Test func anExistingStoreGetsNoNote() throws {
        let home = try ScratchFolder()
        let sample = SampleFiles.sampleFolders[0]
        let post = try Self.run(["post", sample.images[0], sample.images[1]], in: home.path)
        #expect(post.status == 0 && post.stderr.isEmpty, "writing creates the store without a note")
        let list = try Self.run(["list"], in: home.path)
        #expect(list.status == 0 && list.stderr.isEmpty)
    }
}
