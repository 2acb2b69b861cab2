import Foundation
import Testing

/// `tenbin post - b.jpg`: one image piped in, as `curl … | tenbin post - b.jpg` does.
@Suite(.ownThreads) struct PostFromStandardInputTests {
    static let cat = "\(Tenbin.root)/SampleImages/01-cats-or-dogs/1-cat.jpg"
    static let dog = "\(Tenbin.root)/SampleImages/01-cats-or-dogs/2-dog.jpg"

    static func digests(_ run: TenbinRun) throws -> [String] {
        let poster = try #require(try JSONSerialization.jsonObject(with: run.stdoutBytes) as? [String: Any])
        let images = try #require(poster["images"] as? [[String: Any]])
        return images.compactMap { $0["digest"] as? String }
    }

    @Test func aPipedImageIsStoredLikeTheSameFile() throws {
        let store = try ScratchFolder()
        let catBytes = try Data(contentsOf: URL(fileURLWithPath: Self.cat))
        let piped = try Tenbin.run(["post", "-", Self.dog, "--json"], store: store.path, stdin: catBytes)
        #expect(piped.status == 0, "\(piped.stderr)")
        let fromFiles = try Tenbin.run(["post", Self.cat, Self.dog, "--json"], store: store.path)
        #expect(try Self.digests(piped) == Self.digests(fromFiles))
        let second = try Tenbin.run(["post", Self.dog, "-", "--json"], store: store.path, stdin: catBytes)
        #expect(second.status == 0)
        #expect(try Self.digests(second) == Self.digests(fromFiles).reversed())
    }

    @Test func badInputOnStandardInputIsNamedSo() throws {
        let store = try ScratchFolder()
        let text = try Tenbin.run(["post", "-", Self.dog], store: store.path, stdin: Data("hello\n".utf8))
        #expect(text.status == 1)
        #expect(text.stderr.hasPrefix("Error: standard input: "), "\(text.stderr)")
        #expect(text.stderr.split(separator: "\n").count == 1)
        // Past the size limit: refused after reading one byte more than the limit, not all of it.
        var big = try Data(contentsOf: URL(fileURLWithPath: Self.cat))
        big.append(Data(count: 3 << 20))
        let large = try Tenbin.run(["post", "-", Self.dog, "--max-file-mb", "1"], store: store.path, stdin: big)
        #expect(large.status == 1)
        #expect(large.stderr == "Error: standard input: is larger than the limit of 1 MiB\n", "\(large.stderr)")
        let empty = try Tenbin.run(["post", "-", Self.dog], store: store.path, stdin: Data())
        #expect(empty.status == 1)
        #expect(empty.stderr.hasPrefix("Error: standard input: "))
        #expect(!store.files().contains { $0.hasPrefix("blobs/") }, "no image stored")
    }

    @Test func aTerminalAsStandardInputIsAUsageErrorNotAWait() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }  // util-linux gives the terminal
        let store = try ScratchFolder()
        let command = "'\(Tenbin.binary)' --store '\(store.path)' post - '\(Self.dog)'; echo \"status $?\""
        let run = try Shell.capture(["/usr/bin/script", "-qec", command, "/dev/null"])
        #expect(run.stdout.contains("Error: '-' reads the image from standard input, which is a terminal; pipe the image in"))
        #expect(run.stdout.contains("status 64"))
    }

    @Test func bothImagesCannotComeFromStandardInput() throws {
        let run = try Tenbin.run(["post", "-", "-"], stdin: Data())
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("Error: only one image can come from standard input ('-')\nUsage: tenbin post "))
    }
}
