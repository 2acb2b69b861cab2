import Foundation
import TenbinKit

/// What making blobs durable costs an import whose images are all new, on a quiet disk and
/// just after another process wrote a large file to the same file system without flushing it
/// (as a database or a log writer does): tenbin flushes only its own files (fdatasync each,
/// fsync each folder), so those dirty pages should not slow it down; `sync -f` (syncfs, what
/// imports called before, twice a batch) is timed after the same writer for reference.
///
/// `TENBIN_BENCH_BASELINE=/path/to/tenbin` adds the same rows for another build (say main's),
/// measured in the same run.
enum ImportDurability {
    static let posters = 300
    /// Below the kernel's background write-back threshold here (10 % of 23 GB), so nothing
    /// writes these pages during the import unless the import asks for them.
    static let writerMegabytes = 1536

    static func run(_ context: BenchContext) throws {
        let folder = try images(context)
        let big = "\(context.scratch)/durable-writer.bin"
        let writer = "dd if=/dev/zero of='\(big)' bs=1M count=\(writerMegabytes) status=none"
        var binaries = [("tenbin import", context.tenbin)]
        if let baseline = ProcessInfo.processInfo.environment["TENBIN_BENCH_BASELINE"] {
            binaries.append(("baseline import (TENBIN_BENCH_BASELINE)", baseline))
        }
        let rounds = 3
        var quiet = [String: Samples]()
        var dirty = [String: Samples]()
        var syncfs = Samples()
        defer { try? FileManager.default.removeItem(atPath: big) }
        for _ in 0..<rounds {
            for (label, binary) in binaries {
                quiet[label, default: Samples()].add(try importing(binary, folder, context))
                // The other file is removed afterwards unflushed (removing a file drops its
                // dirty pages), so only an import that flushes the file system writes it.
                _ = try Shell.shell(writer)
                dirty[label, default: Samples()].add(try importing(binary, folder, context))
                try FileManager.default.removeItem(atPath: big)
            }
            _ = try Shell.shell(writer)
            syncfs.add(try Shell.run("sync", "-f", context.scratch).seconds)
            try FileManager.default.removeItem(atPath: big)
        }
        var table = Table(
            "\(posters) posters, \(posters * 2) new images (480×360), --jobs 2", "quiet disk",
            "just after another process wrote \(writerMegabytes) MB", "ratio")
        for (label, _) in binaries {
            let calm = quiet[label]?.median ?? 0
            let busy = dirty[label]?.median ?? 0
            table.add(label, Format.ms(calm), Format.ms(busy), Format.ratio(busy / calm))
        }
        table.add("reference: one `sync -f` (syncfs) just after that writer", "", Format.ms(syncfs.median), "")
        table.print()
        print(
            "\nMedian of \(rounds) rounds (whole processes). The writer is `dd if=/dev/zero bs=1M count=\(writerMegabytes)`, "
                + "finished just before the import and removed after it, unflushed. An import that syncs the whole file "
                + "system writes its pages; one that flushes only its own files should not (ratio ≈ 1).")
    }

    /// Imports the manifest into a fresh store and returns the wall time.
    private static func importing(_ binary: String, _ folder: String, _ context: BenchContext) throws -> Double {
        let store = try context.freshFolder("import-durable-store")
        let run = try Shell.measure([binary, "--store", store, "import", "\(folder)/posters.jsonl", "--jobs", "2"])
        guard run.status == 0 else { throw BenchError("\(binary) import exited \(run.status)") }
        return run.seconds
    }

    /// `posters * 2` distinct noisy JPEGs and a manifest pairing them, made once and cached.
    private static func images(_ context: BenchContext) throws -> String {
        let folder = "\(context.scratch)/import-durable"
        try FileManager.default.createDirectory(atPath: "\(folder)/images", withIntermediateDirectories: true)
        let codec = ImageCodec()
        var random = Random(seed: 13)
        for index in 0..<posters * 2 where !FileManager.default.fileExists(atPath: "\(folder)/images/\(index).jpg") {
            var pixels = [UInt8](repeating: 0, count: 480 * 360 * 3)
            for offset in pixels.indices { pixels[offset] = UInt8(truncatingIfNeeded: offset / 97 &+ random.next(64)) }
            let image = try codec.encode(PixelBuffer(width: 480, height: 360, channels: 3, pixels: pixels), source: "generated \(index)")
            try Data(image.bytes).write(to: URL(fileURLWithPath: "\(folder)/images/\(index).jpg"))
        }
        let lines = (0..<posters).map { #"{"image1": "images/\#($0 * 2).jpg", "image2": "images/\#($0 * 2 + 1).jpg", "contents": "poster \#($0)"}"# }
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: "\(folder)/posters.jsonl"))
        return folder
    }
}
