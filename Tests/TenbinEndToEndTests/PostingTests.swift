import Foundation
import Testing

@Suite(.ownThreads, .timeLimit(.minutes(10))) struct PostingTests {
    static var sampleFolders: [(name: String, images: [String], question: String, tags: [String])] {
        let base = Tenbin.root + "/SampleImages"
        return ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []).sorted().map { name in
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: "\(base)/\(name)")) ?? []).sorted()
            let images = files.filter { $0 != "post.txt" }.map { "\(base)/\(name)/\($0)" }
            let lines = ((try? String(contentsOfFile: "\(base)/\(name)/post.txt", encoding: .utf8)) ?? "").split(separator: "\n")
            let tags = lines.filter { $0.hasPrefix("#") }.flatMap { $0.split(separator: " ").map(String.init) }
            let question = lines.first { !$0.hasPrefix("#") }.map(String.init) ?? ""
            return (name, images, question, tags)
        }
    }

    func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    @Test func everySampleFolderPostsAndReadsBackAsDocumentedJSON() throws {
        let store = try ScratchFolder()
        let folders = Self.sampleFolders
        #expect(folders.count == 10)
        for folder in folders {
            let run = try Tenbin.run(
                ["post"] + folder.images + ["--text", folder.question, "--json"] + folder.tags.flatMap { ["--tag", $0] }, store: store.path)
            #expect(run.status == 0, "\(folder.name): \(run.stderr)")
            #expect(run.stderr.isEmpty)
            let poster = try #require(try json(run.stdout) as? [String: Any])
            #expect(Set(poster.keys) == ["id", "contents", "hashtags", "good1", "good2", "createdAt", "images"])
            #expect(poster["contents"] as? String == folder.question)
            #expect(poster["hashtags"] as? [String] == folder.tags.map { String($0.dropFirst()) })
            let images = try #require(poster["images"] as? [[String: Any]])
            #expect(images.count == 2)
            for image in images {
                #expect(Set(image.keys) == ["digest", "format", "width", "height", "bytes"])
                #expect((image["digest"] as? String)?.count == 64)
                #expect(max(image["width"] as! Int, image["height"] as! Int) <= 2048)
            }
        }
        let list = try Tenbin.run(["list", "--json", "--limit", "100"], store: store.path)
        let posters = try #require(try json(list.stdout) as? [[String: Any]])
        #expect(posters.map { $0["id"] as! Int } == Array((1...10).reversed()))
        #expect(try Tenbin.run(["check"], store: store.path).status == 0)
    }

    @Test func theJSONOfAPosterIsExactlyTheDocumentedLine() throws {
        let store = try ScratchFolder()
        let folder = Self.sampleFolders[0]
        let posted = try Tenbin.run(["post"] + folder.images + ["--text", "a \"quoted\"\nline", "--tag", "猫", "--json"], store: store.path)
        #expect(
            posted.stdout.hasPrefix(
                "{\"id\": 1, \"contents\": \"a \\\"quoted\\\"\\nline\", \"hashtags\": [\"猫\"], \"good1\": 0, \"good2\": 0, \"createdAt\": \""
            ))
        #expect(posted.stdout.contains("\"images\": [{\"digest\": \""))
        let shown = try Tenbin.run(["show", "1", "--json"], store: store.path)
        #expect(shown.stdout == posted.stdout)
    }

    @Test func votingListingShowingAndDeletingWorkTogether() throws {
        let store = try ScratchFolder()
        let folder = Self.sampleFolders[0]
        for _ in 0..<3 { #expect(try Tenbin.run(["post"] + folder.images, store: store.path).status == 0) }
        let vote = try Tenbin.run(["vote", "2", "1", "--times", "3", "--json"], store: store.path)
        #expect(vote.status == 0)
        #expect(vote.stdout.contains("\"good1\": 3, \"good2\": 0"))
        let human = try Tenbin.run(["vote", "2", "2"], store: store.path)
        #expect(human.stdout == "#2  ▕███████████████░░░░░▏  3 : 1  (75% : 25%)\n")
        let popular = try Tenbin.run(["list", "--sort", "popular"], store: store.path)
        #expect(popular.stdout.hasPrefix("#2  ▕█████████░░░▏ 3 : 1"))
        let shown = try Tenbin.run(["show", "3", "--json"], store: store.path)
        let deletedJSON = try Tenbin.run(["delete", "3", "--json"], store: store.path)
        #expect(deletedJSON.status == 0 && deletedJSON.stdout == shown.stdout, "the poster as it last was")
        #expect(try Tenbin.run(["delete", "2"], store: store.path).stdout == "Deleted #2.\n")
        let missing = try Tenbin.run(["show", "2"], store: store.path)
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: poster #2: no such poster\n")
        let noVote = try Tenbin.run(["vote", "2", "1"], store: store.path)
        #expect(noVote.status == 1)
        #expect(noVote.stderr == "Error: poster #2: no such poster\n")
    }

    @Test func imageWritesTheStoredBytesExactly() throws {
        let store = try ScratchFolder()
        let folder = Self.sampleFolders[3]
        let posted = try Tenbin.run(["post"] + folder.images + ["--json"], store: store.path)
        let poster = try #require(try json(posted.stdout) as? [String: Any])
        let digest = try #require((poster["images"] as? [[String: Any]])?[0]["digest"] as? String)
        let toStdout = try Tenbin.run(["image", "1", "1"], store: store.path)
        #expect(toStdout.status == 0)
        let stored = try Data(contentsOf: URL(fileURLWithPath: "\(store.path)/blobs/\(digest.prefix(2))/\(digest)"))
        #expect(toStdout.stdoutBytes == stored)
        let file = store.path + "/out.png"
        #expect(try Tenbin.run(["image", "1", "1", "-o", file], store: store.path).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == stored)
        // `-o -` is standard output, as `-` is standard input to `post`; it wrote a file named
        // "-" in the current folder (tenbin runs in the package root here).
        let dash = Tenbin.root + "/-"
        defer { try? FileManager.default.removeItem(atPath: dash) }
        let dashed = try Tenbin.run(["image", "1", "1", "-o", "-"], store: store.path)
        #expect(dashed.status == 0)
        #expect(dashed.stdoutBytes == stored)
        #expect(!FileManager.default.fileExists(atPath: dash))
    }

    @Test func gcRemovesWhatDeleteLeftAndCheckPasses() throws {
        let store = try ScratchFolder()
        let folder = Self.sampleFolders[1]
        #expect(try Tenbin.run(["post"] + folder.images, store: store.path).status == 0)
        let gc = try Tenbin.run(["gc"], store: store.path)
        #expect(gc.stdout == "Removed 0 unused blobs, 0 bytes, 0 temporary files and 0 preview card files.\n")
        let check = try Tenbin.run(["check"], store: store.path)
        #expect(check.stdout == "OK: 1 poster, 2 blobs, all sound.\n")
    }

    @Test func checkReportsACorruptBlobAndExits1() throws {
        let store = try ScratchFolder()
        let folder = Self.sampleFolders[1]
        #expect(try Tenbin.run(["post"] + folder.images, store: store.path).status == 0)
        let blob = try #require(store.files().first { $0.hasPrefix("blobs/") })
        try Data("not the image".utf8).write(to: URL(fileURLWithPath: "\(store.path)/\(blob)"))
        let check = try Tenbin.run(["check"], store: store.path)
        #expect(check.status == 1)
        #expect(check.stderr.hasPrefix("Error: blob "))
        #expect(check.stderr.contains("corrupt"))
    }

    @Test func readingAnEmptyStoreShowsNoPostersAndCreatesNothing() throws {
        let store = try ScratchFolder()
        let path = store.path + "/fresh"
        let list = try Tenbin.run(["list"], store: path)
        #expect(list.status == 0)
        #expect(list.stdout == "No posters.\n")
        #expect(try Tenbin.run(["list", "--json"], store: path).stdout == "[]\n")
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
