import Foundation
import TenbinKit
import TenbinSQLite
import Testing

/// `tenbin post`, `edit` and `import` hold a poster's text to the core's one limit: one
/// `Error:` line naming the field and the limit, exit 1, and nothing stored from what failed.
@Suite(.ownThreads, .timeLimit(.minutes(10))) struct TextLimitCommandTests {
    static let images = EditCommandTests.images

    /// Arguments over each limit, with the error line they must give.
    static let overLimits: [(arguments: [String], error: String)] = [
        (["--text", String(repeating: "a", count: 4097)], "Error: the question is longer than 4,096 bytes\n"),
        ((0..<33).flatMap { ["--tag", "t\($0)"] }, "Error: a poster has at most 32 hashtags\n"),
        // Quoted by its start only; the bidirectional override cannot turn the line around.
        (
            ["--tag", "#\u{202E}" + String(repeating: "x", count: 250)],
            "Error: the hashtag \"\u{FFFD}\(String(repeating: "x", count: 19))…\" is longer than 200 bytes\n"
        ),
    ]

    @Test func aPostOverALimitFailsAndCreatesNothing() throws {
        let scratch = try ScratchFolder()
        let store = scratch.path + "/store"
        for (arguments, error) in Self.overLimits {
            let run = try Tenbin.run(["post"] + Self.images + arguments, store: store)
            #expect(run.status == 1)
            #expect(run.stderr == error)
            #expect(run.stdout == "")
        }
        #expect(!FileManager.default.fileExists(atPath: store), "a refused post creates no store")
        // At the limits a post goes through: hashtags are counted as stored (without a repeat),
        // measured without their #.
        let atLimits = try Tenbin.run(
            ["post"] + Self.images + ["--text", String(repeating: "a", count: 4096)] + (0..<31).flatMap { ["--tag", "t\($0)"] }
                + ["--tag", "t0", "--tag", "#" + String(repeating: "y", count: 200), "--json"], store: store)
        #expect(atLimits.status == 0, "\(atLimits.stderr)")
        #expect(atLimits.stdout.contains("\"id\": 1"))
    }

    @Test func anEditOverALimitFailsAndChangesNothing() throws {
        let store = try ScratchFolder()
        #expect(try Tenbin.run(["post"] + Self.images + ["--text", "きのこ派？", "--tag", "きのこ"], store: store.path).status == 0)
        let before = try Tenbin.run(["show", "1", "--json"], store: store.path).stdout
        for (arguments, error) in Self.overLimits {
            let run = try Tenbin.run(["edit", "1"] + arguments, store: store.path)
            #expect(run.status == 1)
            #expect(run.stderr == error)
            #expect(run.stdout == "")
        }
        #expect(try Tenbin.run(["show", "1", "--json"], store: store.path).stdout == before)
        #expect(try Tenbin.run(["check"], store: store.path).status == 0)
    }

    @Test func aPosterStoredOverTheLimitsByAnOlderVersionStillShowsVotesCopiesAndEdits() throws {
        let scratch = try ScratchFolder()
        let store = scratch.path + "/store"
        #expect(try Tenbin.run(["post"] + Self.images + ["--text", "short"], store: store).status == 0)
        // Written the way an older version wrote it, without the core's check.
        let question = String(repeating: "長", count: 100_000)
        let hashtags = (0..<5001).map { "t\($0)" }
        do {
            let board = try Board(folder: store, create: false)
            let images = try board.poster(id: 1).images
            _ = try board.store.write { writing in
                try writing.insertPoster(
                    NewPoster(contents: question, hashtags: hashtags, images: images), createdAt: Timestamp.now(),
                    search: SearchRecord(contents: question, hashtags: hashtags))
            }
        }
        let shown = try Tenbin.run(["show", "2"], store: store)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("長長長") && shown.stdout.contains("#t5000"))
        let voted = try Tenbin.run(["vote", "2", "1", "--times", "3", "--json"], store: store)
        #expect(voted.status == 0 && voted.stdout.contains("\"good1\": 3"))
        let listed = try Tenbin.run(["list", "--json"], store: store)
        #expect(listed.status == 0 && listed.stdout.contains(question) && listed.stdout.contains("\"t5000\""))
        let copy = try Tenbin.run(["copy", "--from", store, "--to", scratch.path + "/copy"])
        #expect(copy.status == 0, "\(copy.stderr)")
        let original = try Tenbin.run(["show", "2", "--json"], store: store).stdout
        #expect(try Tenbin.run(["show", "2", "--json"], store: scratch.path + "/copy").stdout == original)
        // Editing the question keeps the hashtags it has; new hashtags over the limit are refused.
        let edited = try Tenbin.run(["edit", "2", "--text", "短い", "--json"], store: store)
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(edited.stdout.contains("\"contents\": \"短い\"") && edited.stdout.contains("\"t5000\""))
        let tags = try Tenbin.run(["edit", "2"] + (0..<33).flatMap { ["--tag", "t\($0)"] }, store: store)
        #expect(tags.status == 1)
        #expect(tags.stderr == "Error: a poster has at most 32 hashtags\n")
        #expect(try Tenbin.run(["check"], store: store).status == 0)
    }

    @Test func aManifestLineOverALimitOrOver16MiBFailsAloneAndTheRestIsImported() throws {
        let folder = try ScratchFolder()
        let store = try ScratchFolder()
        let manifest = "\(folder.path)/posters.jsonl"
        let cat = Self.images[0]
        let dog = Self.images[1]
        func line(_ contents: String, _ hashtags: [String] = []) -> [UInt8] {
            let tags = hashtags.map { "\"\($0)\"" }.joined(separator: ", ")
            return Array(#"{"image1": "\#(cat)", "image2": "\#(dog)", "contents": "\#(contents)", "hashtags": [\#(tags)]}"#.utf8) + [0x0A]
        }
        var bytes = line("first")
        bytes += line(String(repeating: "長", count: 100_000))  // 300,000 bytes
        bytes += line("many", (0..<5001).map { "t\($0)" })
        bytes += line("long tag", [String(repeating: "x", count: 201)])
        bytes += Array(#"{"image1": "a.jpg", "image2": "b.jpg", "contents": ""#.utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "x"), count: 17 << 20) + Array("\"}\n".utf8)
        bytes += line("last")
        try Data(bytes).write(to: URL(fileURLWithPath: manifest))
        let run = try Tenbin.run(["import", manifest], store: store.path)
        #expect(run.status == 1)
        #expect(run.stdout == "Imported 2 posters, skipped 0 already on the board; 4 failed.\n")
        #expect(
            run.stderr == """
                Error: \(manifest):2: the question is longer than 4,096 bytes
                Error: \(manifest):3: a poster has at most 32 hashtags
                Error: \(manifest):4: the hashtag "\(String(repeating: "x", count: 20))…" is longer than 200 bytes
                Error: \(manifest):5: line is longer than 16 MiB

                """)
        let list = try Tenbin.run(["list", "--json"], store: store.path)
        #expect(list.stdout.contains("\"contents\": \"first\"") && list.stdout.contains("\"contents\": \"last\""))
        #expect(list.stdout.components(separatedBy: "\"id\": ").count == 3, "two posters")
        #expect(try Tenbin.run(["check"], store: store.path).status == 0)
    }
}
