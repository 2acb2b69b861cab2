import Foundation
import Testing

/// `kill -9` at any moment of an import leaves a store `tenbin check` passes, and running the
/// import again finishes the job without adding anything twice.
@Suite(.serialized) struct ImportCrashTests {
    private let samples = "\(Tenbin.root)/SampleImages"

    /// Starts `tenbin import`, kills it with SIGKILL after `delay` seconds (unless it is done),
    /// and waits for it.
    private func killImport(_ source: String, store: String, after delay: Double) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tenbin.binary)
        process.arguments = ["--store", store, "import", source, "--jobs", "2"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: delay)
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
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
        for delay in [0.02, 0.15, 0.3, 0.6, 1.0, 1.5] {
            try killImport(source.path, store: store.path, after: delay)
            try expectSound(store.path)
        }
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
        for delay in [0.05, 0.3, 0.7, 1.2] {
            try killImport(manifest, store: store.path, after: delay)
            try expectSound(store.path)
        }
        let finish = try Tenbin.run(["import", manifest], store: store.path)
        #expect(finish.status == 0, "\(finish.stderr)")
        let check = try Tenbin.run(["check"], store: store.path)
        #expect(check.stdout.contains("OK: 40000 posters, 3 blobs"), "\(check.stdout)")
    }
}
