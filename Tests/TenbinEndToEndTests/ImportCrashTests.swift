import Foundation
import Testing

/// `kill -9` at any moment of an import leaves a store `tenbin check` passes, and running the
/// import again finishes the job without adding anything twice.
@Suite(.ownThreads, .serialized, .timeLimit(.minutes(15))) struct ImportCrashTests {
    private let samples = "\(Tenbin.root)/SampleImages"

    /// Starts `tenbin import`, kills it with SIGKILL once it reports `done` entries or more,
    /// and says whether the kill landed inside the import.
    private func killImport(_ source: String, store: String, atProgress done: Int, round: Int) throws -> Bool {
        let run = try KilledRun.run(
            ["--store", store, "import", source, "--jobs", "2"], markerFile: "\(store)/markers-\(round)",
            at: { marker in
                marker.hasPrefix("import:progress ")
                    && (marker.dropFirst("import:progress ".count).split(separator: "/").first.flatMap { Int($0) } ?? 0) >= done
            })
        return run.landedInside("import")
    }

    private func expectSound(_ store: String) throws {
        let check = try Tenbin.run(["check"], store: store)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }

    /// Poster folders whose images all differ in their bytes (so each one is decoded), made
    /// from the sample photos with a distinct tail after the JPEG end marker.
    private func distinctFolders(_ count: Int, in root: String) throws {
        let photos = ["03-phone-portrait/a-rotated.jpg", "03-phone-portrait/b-plain.jpg", "09-sea-or-mountain/sea.jpg"]
        let bytes = try photos.map { try Data(contentsOf: URL(fileURLWithPath: "\(samples)/\($0)")) }
        for index in 0..<count {
            let folder = "\(root)/poster \(index)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for side in 0..<2 {
                var data = bytes[(index + side) % bytes.count]
                data.append(Data("tail \(index) \(side)".utf8))
                try data.write(to: URL(fileURLWithPath: "\(folder)/\(side + 1).jpg"))
            }
            try Data("question \(index)\n#crash".utf8).write(to: URL(fileURLWithPath: "\(folder)/post.txt"))
        }
    }

    @Test func killingAFolderImportAtAnyMomentLeavesASoundStoreAndARerunFinishes() throws {
        let source = try ScratchFolder()
        let store = try ScratchFolder()
        try distinctFolders(24, in: source.path)
        var landed = 0
        for (round, done) in [0, 2, 5, 8, 12, 16].enumerated() {
            if try killImport(source.path, store: store.path, atProgress: done, round: round) { landed += 1 }
            try expectSound(store.path)
        }
        #expect(landed >= 4, "only \(landed) of 6 kills landed inside the import")
        let finish = try Tenbin.run(["import", source.path], store: store.path)
        #expect(finish.status == 0, "\(finish.stderr)")
        let again = try Tenbin.run(["import", source.path], store: store.path)
        #expect(again.stdout == "Imported 0 posters, skipped 24 already on the board; nothing failed.\n")
        let check = try Tenbin.run(["check"], store: store.path)
        #expect(check.stdout.contains("OK: 24 posters"), "\(check.stdout)")
    }

    @Test func killingAManifestImportMidTransactionLeavesASoundStoreAndARerunFinishes() throws {
        let source = try ScratchFolder()
        let store = try ScratchFolder()
        let images = ["01-cats-or-dogs/1-cat.jpg", "01-cats-or-dogs/2-dog.jpg", "06-ramen-udon/udon.png"].map { "\(samples)/\($0)" }
        var lines: [String] = []
        for index in 0..<40_000 {
            lines.append(
                #"{"image1": "\#(images[index % 3])", "image2": "\#(images[(index + 1) % 3])", "contents": "line \#(index)", "hashtags": ["t"]}"#
            )
        }
        let manifest = "\(source.path)/m.jsonl"
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: manifest))
        var landed = 0
        for (round, done) in [0, 2_000, 6_000, 12_000].enumerated() {
            if try killImport(manifest, store: store.path, atProgress: done, round: round) { landed += 1 }
            try expectSound(store.path)
        }
        #expect(landed >= 3, "only \(landed) of 4 kills landed inside the import")
        let finish = try Tenbin.run(["import", manifest], store: store.path)
        #expect(finish.status == 0, "\(finish.stderr)")
        let check = try Tenbin.run(["check"], store: store.path)
        #expect(check.stdout.contains("OK: 40000 posters, 3 blobs"), "\(check.stdout)")
    }
}
