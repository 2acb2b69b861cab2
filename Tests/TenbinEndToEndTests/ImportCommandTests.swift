import Foundation
import Testing

@Suite(.ownThreads, .timeLimit(.minutes(10))) struct ImportCommandTests {
    private let samples = "\(Tenbin.root)/SampleImages"

    private func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func importingTheSamplesTwiceAddsTenPostersOnce() throws {
        let store = try ScratchFolder()
        let first = try Tenbin.run(["import", samples, "--json"], store: store.path)
        #expect(first.status == 0)
        #expect(first.stderr == "", "no progress bar off a terminal")
        let report = try json(first.stdout)
        #expect(report["imported"] as? Int == 10)
        #expect(report["skipped"] as? Int == 0)
        #expect(report["failed"] as? Int == 0)
        let items = try #require(report["items"] as? [[String: Any]])
        #expect(items.count == 10)
        #expect(items[0]["source"] as? String == "\(samples)/01-cats-or-dogs")
        #expect(items[0]["status"] as? String == "imported")
        #expect(items[0]["id"] as? Int == 1)
        #expect(items[0]["error"] == nil)
        #expect(first.stdout.hasPrefix(#"{"imported": 10, "skipped": 0, "failed": 0, "items": ["#))

        let second = try Tenbin.run(["import", samples], store: store.path)
        #expect(second.status == 0)
        #expect(second.stdout == "Imported 0 posters, skipped 10 already on the board; nothing failed.\n")
        #expect(second.stderr == "")
        let check = try Tenbin.run(["check"], store: store.path)
        #expect(check.stdout.contains("OK: 10 posters, 20 blobs"))
        let shown = try Tenbin.run(["show", "8"], store: store.path)
        #expect(shown.stdout.contains("ｷﾉｺ派？タケノコ派？"))
    }

    @Test func failedFoldersAreListedOnStandardErrorAndExitOne() throws {
        let folder = try ScratchFolder()
        let store = try ScratchFolder()
        let manager = FileManager.default
        for (name, files) in [("a pair", ["1-cat.jpg", "2-dog.jpg"]), ("b-one", ["1-cat.jpg"])] {
            try manager.createDirectory(atPath: "\(folder.path)/\(name)", withIntermediateDirectories: true)
            for file in files {
                try manager.copyItem(atPath: "\(samples)/01-cats-or-dogs/\(file)", toPath: "\(folder.path)/\(name)/\(file)")
            }
        }
        try Data("<svg/>".utf8).write(to: URL(fileURLWithPath: "\(folder.path)/b-one/2.png"))
        let run = try Tenbin.run(["import", folder.path], store: store.path)
        #expect(run.status == 1)
        #expect(run.stderr == "Error: \(folder.path)/b-one: 2.png is an SVG/XML document, not a JPEG, PNG, WebP, HEIC or AVIF image\n")
        #expect(run.stdout == "Imported 1 poster, skipped 0 already on the board; 1 failed.\n")
        let json = try self.json(try Tenbin.run(["import", folder.path, "--json"], store: store.path).stdout)
        let items = try #require(json["items"] as? [[String: Any]])
        #expect(items.map { $0["status"] as? String } == ["skipped", "failed"])
        #expect(items[1]["error"] as? String == "2.png is an SVG/XML document, not a JPEG, PNG, WebP, HEIC or AVIF image")
        #expect(items[1]["id"] == nil)
    }

    @Test func aManifestWithABadLineImportsTheRest() throws {
        let folder = try ScratchFolder()
        let store = try ScratchFolder()
        try FileManager.default.copyItem(atPath: "\(samples)/07-tokyo", toPath: "\(folder.path)/東京 の 写真")
        let lines = [
            #"{"image1": "東京 の 写真/sky tree.jpeg", "image2": "東京 の 写真/tower.JPG", "contents": "どっち？", "hashtags": ["東京"]}"#,
            #"{"image1": "東京 の 写真/sky tree.jpeg"}"#,
        ]
        try Data(lines.joined(separator: "\r\n").utf8).write(to: URL(fileURLWithPath: "\(folder.path)/posters.jsonl"))
        let run = try Tenbin.run(["import", "\(folder.path)/posters.jsonl", "--jobs", "1", "--json"], store: store.path)
        #expect(run.status == 1)
        let report = try json(run.stdout)
        #expect(report["imported"] as? Int == 1)
        #expect(report["failed"] as? Int == 1)
        let items = try #require(report["items"] as? [[String: Any]])
        #expect(items[1]["source"] as? String == "\(folder.path)/posters.jsonl:2")
        #expect(items[1]["error"] as? String == #"line has no "image2""#)
        #expect(try Tenbin.run(["show", "1"], store: store.path).stdout.contains("#東京"))
    }

    @Test func aDryRunWritesNothing() throws {
        let scratch = try ScratchFolder()
        let store = "\(scratch.path)/store"
        let run = try Tenbin.run(["import", samples, "--dry-run"], store: store)
        #expect(run.status == 0)
        #expect(run.stdout == "Dry run: would import 10 posters, skip 0 already on the board; nothing failed. Nothing was written.\n")
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test func usageMistakesExit64AndAMissingSourceExits1() throws {
        let store = try ScratchFolder()
        let missing = try Tenbin.run(["import"], store: store.path)
        #expect(missing.status == 64)
        #expect(missing.stderr.hasPrefix("Error: missing DIR\nUsage: tenbin import DIR|MANIFEST.jsonl"))
        let jobs = try Tenbin.run(["import", samples, "--jobs", "0"], store: store.path)
        #expect(jobs.status == 64)
        #expect(jobs.stderr.hasPrefix("Error: '--jobs' takes a whole number from 1 to 256, not '0'"))
        let nowhere = try Tenbin.run(["import", "/nonexistent/folder"], store: store.path)
        #expect(nowhere.status == 1)
        #expect(nowhere.stderr == "Error: /nonexistent/folder: cannot be read: No such file or directory\n")
        let help = try Tenbin.run(["help", "import"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: tenbin import DIR|MANIFEST.jsonl [--jobs N] [--json] [--dry-run]"))
    }

    @Test func onATerminalProgressIsOneRedrawnLineOnStandardError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }  // util-linux gives the terminal
        let store = try ScratchFolder()
        let command = "'\(Tenbin.binary)' --store '\(store.path)' import '\(samples)' > '\(store.path)/out.txt'"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        let run = try Shell.collect(process, what: "tenbin import in a terminal")
        let terminal = String(decoding: run.stdout, as: UTF8.self)
        #expect(run.status == 0)
        #expect(terminal.contains("\rImporting 10/10 posters · "))
        #expect(terminal.contains(" posters/s · "))
        #expect(!terminal.contains("images/s"), "one unit throughout")
        #expect(!terminal.contains("\n"), "the line is redrawn in place, then cleared")
        let out = try String(contentsOfFile: "\(store.path)/out.txt", encoding: .utf8)
        #expect(out == "Imported 10 posters, skipped 0 already on the board; nothing failed.\n")
    }
}
