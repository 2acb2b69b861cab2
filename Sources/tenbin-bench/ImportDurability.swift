import Foundation
import TenbinKit

/// What making blobs durable costs an import whose images are all new: on a quiet disk; while
/// another process writes 2 GB, to memory (tmpfs: its CPU cost only) or to the store's disk;
/// and just after another process left 1.5 GB unflushed on that disk (as a database or a log
/// writer does). tenbin flushes only its own files (fdatasync each, fsync each folder), so the
/// other writer's dirty pages should cost it little; `sync -f` (syncfs, what imports called
/// before, twice a batch) is timed after the same writer for reference.
///
/// `TENBIN_BENCH_BASELINE=/path/to/tenbin` adds the same rows for another build (say main's),
/// measured in the same run.
enum ImportDurability {
    static let posters = 300
    static let concurrentMegabytes = 2048
    /// Below the kernel's background write-back threshold here (10 % of 23 GB), so nothing
    /// writes these pages during the import unless the import asks for them.
    static let leftMegabytes = 1536

    static func run(_ context: BenchContext) throws {
        let folder = try images(context)
        let onDisk = "\(context.scratch)/durable-writer.bin"
        let inMemory = "/dev/shm/tenbin-bench-durable-writer-\(getpid()).bin"
        var binaries = [("tenbin import", context.tenbin)]
        if let baseline = ProcessInfo.processInfo.environment["TENBIN_BENCH_BASELINE"] {
            binaries.append(("baseline import (TENBIN_BENCH_BASELINE)", baseline))
        }
        let rounds = 3
        var times = [String: [Samples]]()
        var syncfs = Samples()
        defer { for file in [onDisk, inMemory] { try? FileManager.default.removeItem(atPath: file) } }
        for _ in 0..<rounds {
            for (label, binary) in binaries {
                var samples = times[label] ?? Array(repeating: Samples(), count: 4)
                samples[0].add(try importing(binary, folder, context))
                // The other writer starts first and runs alongside; its file is removed
                // afterwards unflushed (removing a file drops its dirty pages).
                for (column, file) in [(1, inMemory), (2, onDisk)] {
                    let other = try startShell(writer(file, megabytes: concurrentMegabytes))
                    samples[column].add(try importing(binary, folder, context))
                    other.waitUntilExit()
                    try FileManager.default.removeItem(atPath: file)
                }
                _ = try Shell.shell(writer(onDisk, megabytes: leftMegabytes))
                samples[3].add(try importing(binary, folder, context))
                try FileManager.default.removeItem(atPath: onDisk)
                times[label] = samples
            }
            _ = try Shell.shell(writer(onDisk, megabytes: leftMegabytes))
            syncfs.add(try Shell.run("sync", "-f", context.scratch).seconds)
            try FileManager.default.removeItem(atPath: onDisk)
        }
        var table = Table(
            "\(posters) posters, \(posters * 2) new images (480×360), --jobs 2", "quiet",
            "another process writing \(concurrentMegabytes / 1024) GB to tmpfs", "the same to the store's disk", "disk / tmpfs",
            "just after another process left \(leftMegabytes) MB unflushed", "vs quiet")
        for (label, _) in binaries {
            let medians = (times[label] ?? []).map(\.median)
            guard medians.count == 4 else { continue }
            table.add(
                label, Format.ms(medians[0]), Format.ms(medians[1]), Format.ms(medians[2]), Format.ratio(medians[2] / medians[1]),
                Format.ms(medians[3]), Format.ratio(medians[3] / medians[0]))
        }
        table.add("reference: one `sync -f` (syncfs) just after that writer", "", "", "", "", Format.ms(syncfs.median), "")
        table.print()
        print(
            "\nMedian of \(rounds) rounds (whole processes). The other writer is `dd if=/dev/zero bs=1M`, its file removed "
                + "after the import, unflushed. An import that syncs the whole file system writes the other file's pages; "
                + "one that flushes only its own files should not (ratios ≈ 1 but for the disk's own contention).")
    }

    private static func writer(_ file: String, megabytes: Int) -> String {
        "dd if=/dev/zero of='\(file)' bs=1M count=\(megabytes) status=none"
    }

    private static func startShell(_ script: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        try process.run()
        return process
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
        let lines = (0..<posters).map {
            #"{"image1": "images/\#($0 * 2).jpg", "image2": "images/\#($0 * 2 + 1).jpg", "contents": "poster \#($0)"}"#
        }
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: "\(folder)/posters.jsonl"))
        return folder
    }
}
