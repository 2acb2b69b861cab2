import Foundation
import Testing

/// What `tenbin import` says when it is pointed at the wrong thing: a photo, a README, a
/// single poster folder, a folder of empty folders, an empty folder.
@Suite(.ownThreads) struct ImportMixUpTests {
    private let samples = "\(Tenbin.root)/SampleImages"

    @Test func aFileThatIsNotAManifestIsOneUsageLine() throws {
        let store = try ScratchFolder()
        for file in ["\(samples)/01-cats-or-dogs/1-cat.jpg", "\(Tenbin.root)/README.md", Tenbin.binary] {
            let run = try Tenbin.run(["import", file], store: store.path + "/store")
            #expect(run.status == 64, "\(file)")
            #expect(
                run.stderr == "Error: \(file): not a manifest (expected a folder of poster folders or a .jsonl file)\n", "\(file)")
            #expect(run.stdout.isEmpty)
            let json = try Tenbin.run(["import", file, "--json"], store: store.path + "/store")
            #expect(json.status == 64)
            #expect(json.stdout.isEmpty && json.stderr.split(separator: "\n").count == 1)
        }
        #expect(store.files().isEmpty, "nothing written, not even the store")
    }

    @Test func aManifestIsRecognisedByItsNameOrItsFirstObject() throws {
        let folder = try ScratchFolder()
        let cat = "\(samples)/01-cats-or-dogs/1-cat.jpg"
        let dog = "\(samples)/01-cats-or-dogs/2-dog.jpg"
        let line = #"{"image1": "\#(cat)", "image2": "\#(dog)"}"#
        // No telling name: the first non-blank line (after a byte-order mark) is an object.
        try ("\u{FEFF}\n  \r\n" + line + "\n").write(toFile: "\(folder.path)/posters.txt", atomically: true, encoding: .utf8)
        let byContent = try Tenbin.run(["import", "\(folder.path)/posters.txt"], store: folder.path + "/a")
        #expect(byContent.status == 0, "\(byContent.stderr)")
        #expect(byContent.stdout == "Imported 1 poster, skipped 0 already on the board; nothing failed.\n")
        // A .jsonl name is a manifest whatever it holds: its bad lines are reported one by one.
        try "not json\n".write(toFile: "\(folder.path)/broken.JSONL", atomically: true, encoding: .utf8)
        let byName = try Tenbin.run(["import", "\(folder.path)/broken.JSONL"], store: folder.path + "/b")
        #expect(byName.status == 1)
        #expect(byName.stderr.hasPrefix("Error: \(folder.path)/broken.JSONL:1: line is not valid JSON"))
    }

    @Test func aSinglePosterFolderSaysSoAndExitsOne() throws {
        let store = try ScratchFolder()
        let folder = try ScratchFolder()
        let manager = FileManager.default
        // One image and a post.txt: the case that used to print "Imported 0 … nothing failed".
        try manager.copyItem(atPath: "\(samples)/01-cats-or-dogs/1-cat.jpg", toPath: "\(folder.path)/1-cat.jpg")
        try "猫？\n".write(toFile: "\(folder.path)/post.txt", atomically: true, encoding: .utf8)
        let one = try Tenbin.run(["import", folder.path], store: store.path)
        #expect(one.status == 1)
        #expect(
            one.stderr
                == "Error: \(folder.path): holds no poster folders; it looks like a single poster folder, which holds 1 image (1-cat.jpg); a poster needs exactly 2\n"
        )
        #expect(one.stdout.isEmpty)
        // Two images: a poster folder given on its own.
        let two = try Tenbin.run(["import", "\(samples)/01-cats-or-dogs"], store: store.path)
        #expect(two.status == 1)
        #expect(two.stderr.contains("it looks like a single poster folder with 2 images (import the folder that contains it"))
    }

    @Test func subfoldersHoldingNothingSayWhyAndExitOne() throws {
        let store = try ScratchFolder()
        let folder = try ScratchFolder()
        for name in ["a", "b", "c"] {
            try FileManager.default.createDirectory(atPath: "\(folder.path)/\(name)", withIntermediateDirectories: true)
            try "notes".write(toFile: "\(folder.path)/\(name)/notes.md", atomically: true, encoding: .utf8)
        }
        let run = try Tenbin.run(["import", folder.path], store: store.path)
        #expect(run.status == 1)
        #expect(run.stderr == "Error: \(folder.path): holds no poster folders: none of its 3 subfolders holds an image or a post.txt\n")
        let files = try ScratchFolder()
        try "notes".write(toFile: "\(files.path)/notes.md", atomically: true, encoding: .utf8)
        let loose = try Tenbin.run(["import", files.path], store: store.path)
        #expect(loose.status == 1)
        #expect(loose.stderr.contains("holds no poster folders (subfolders holding two images each) and no images"))
    }

    @Test func anEmptyFolderOrManifestIsNothingToImport() throws {
        let store = try ScratchFolder()
        let empty = try ScratchFolder()
        let run = try Tenbin.run(["import", empty.path], store: store.path)
        #expect(run.status == 0)
        #expect(run.stdout == "Nothing to import: \(empty.path) holds no posters.\n")
        #expect(run.stderr.isEmpty)
        try "\n\n".write(toFile: "\(empty.path)/none.jsonl", atomically: true, encoding: .utf8)
        let manifest = try Tenbin.run(["import", "\(empty.path)/none.jsonl"], store: store.path)
        #expect(manifest.status == 0)
        #expect(manifest.stdout == "Nothing to import: \(empty.path)/none.jsonl holds no posters.\n")
    }
}
