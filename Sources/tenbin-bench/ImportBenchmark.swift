import Foundation
import TenbinKit

/// `tenbin import`: large photos with one and two jobs against libjpeg-turbo's own tools doing
/// the same work one process per image, and a million-line manifest over stored images.
enum ImportBenchmark {
    static func run(_ context: BenchContext) throws {
        // TENBIN_BENCH_IMPORT=photos or =manifest runs one half (for profiling), =durable only the
        // durable-write rows (which the photos half includes), =photo-rows only the photo rows.
        let part = ProcessInfo.processInfo.environment["TENBIN_BENCH_IMPORT"]
        if part == "durable" { return try ImportDurability.run(context) }
        if part == "photo-rows" { return try photos(context) }
        if part != "manifest" { try photos(context) }
        if part != "manifest" { print(); try ImportDurability.run(context) }
        if part == "photos" { return }
        if part != "manifest" { print() }
        try manifest(context, lines: Int(ProcessInfo.processInfo.environment["TENBIN_BENCH_MANIFEST_LINES"] ?? "") ?? 1_000_000)
    }

    /// Eight 12-megapixel photos as four poster folders.
    static func photos(_ context: BenchContext) throws {
        let photos = try context.photos(count: 8, width: 4000, height: 3000)
        let folder = try posterFolders(photos, in: context.freshFolder("import-photos"))
        // The in-process row is the codec on one core: no shrink thread beside the decoder.
        var codec = ImageCodec()
        codec.shrinkThread = .never
        let reference = try photos.map(WholeCommandBenchmark.pipeline)
        // The two-job speed-up is the noisiest figure here (it needs the second core free): more
        // rounds with TENBIN_BENCH_PHOTO_ROUNDS=N.
        let rounds = Int(ProcessInfo.processInfo.environment["TENBIN_BENCH_PHOTO_ROUNDS"] ?? "") ?? 5
        let loadBefore = MachineState.loadAverage()
        var speedUps: [Double] = []
        var theirs = Samples()
        var theirsCPU = Samples()
        var codecOnly = Samples()
        var one = Samples()
        var oneCPU = Samples()
        var two = Samples()
        var twoCPU = Samples()
        var rss = [1: 0, 2: 0]
        for _ in 0..<rounds {
            var total = 0.0
            var cpu = 0.0
            for script in reference {
                let run = try Shell.shell(script)
                total += run.seconds
                cpu += run.cpuSeconds
            }
            theirs.add(total)
            theirsCPU.add(cpu)
            var inProcess = 0.0
            for photo in photos {
                let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: photo)))
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try codec.reencode(bytes, source: photo)
                inProcess += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            }
            codecOnly.add(inProcess)
            for jobs in [1, 2] {
                let store = try context.freshFolder("import-store")
                let run = try Shell.measure([context.tenbin, "--store", store, "import", folder, "--jobs", "\(jobs)"])
                guard run.status == 0 else { throw BenchError("tenbin import exited \(run.status)") }
                if jobs == 1 {
                    one.add(run.seconds)
                    oneCPU.add(run.cpuSeconds)
                    speedUps.append(run.cpuSeconds)
                } else {
                    two.add(run.seconds)
                    twoCPU.add(run.cpuSeconds)
                    speedUps[speedUps.count - 1] /= run.seconds
                }
                rss[jobs] = max(rss[jobs] ?? 0, run.peakRSS)
            }
        }
        var table = Table("8 photos, 4000×3000 (12 MP)", "time", "CPU time", "peak RSS", "CPU vs reference")
        table.add(
            "reference: djpeg -scale N/8 piped to cjpeg -quality 50, a process per image", Format.ms(theirs.median),
            Format.ms(theirsCPU.median), "", "1.00×")
        table.add(
            "ImageCodec.reencode in process, one core", Format.ms(codecOnly.median), Format.ms(codecOnly.median), "",
            Format.ratio(codecOnly.median / theirsCPU.median))
        table.add(
            "tenbin import --jobs 1", Format.ms(one.median), Format.ms(oneCPU.median), Format.mb(rss[1] ?? 0),
            Format.ratio(oneCPU.median / theirsCPU.median))
        table.add(
            "tenbin import --jobs 2", Format.ms(two.median), Format.ms(twoCPU.median), Format.mb(rss[2] ?? 0),
            Format.ratio(twoCPU.median / theirsCPU.median))
        table.print()
        print("\nMedian of \(rounds) rounds; whole processes (tenbin also hashes, writes and fsyncs blobs, and commits).")
        print(
            "CPU time, tenbin import --jobs 1 against the reference: \(Format.ratio(oneCPU.median / theirsCPU.median)) (aim ≤ 1.10×);",
            terminator: " ")
        print(
            "wall time: \(Format.ratio(one.median / theirs.median)); the import's own cost over the codec: \(Format.ratio(oneCPU.median / codecOnly.median))."
        )
        // One job shrinks and encodes on the second core while it is idle, so two jobs against
        // one job's time no longer says how well two jobs use two cores; against one job's CPU
        // time (the same work done on one core) it does.
        print(
            "Speed-up of two jobs over the same work on one core (one job's CPU time against two jobs' wall time): "
                + "\(Format.ratio(oneCPU.median / two.median)) (aim ≥ 1.90×); by round: \(speedUps.map(Format.ratio).joined(separator: ", ")); "
                + "two jobs against one job's wall time: \(Format.ratio(one.median / two.median)); "
                + "load average before and after: \(loadBefore), \(MachineState.loadAverage())."
        )
        print("Peak RSS at two jobs: \(Format.mb(rss[2] ?? 0)) (aim < 120 MB).")
    }

    /// `photos` as poster folders of two under `folder` (poster-0/1.jpg, poster-0/2.jpg, …),
    /// what `tenbin import FOLDER` reads; returns `folder`.
    static func posterFolders(_ photos: [String], in folder: String) throws -> String {
        for index in 0..<photos.count / 2 {
            let poster = "\(folder)/poster-\(index)"
            try FileManager.default.createDirectory(atPath: poster, withIntermediateDirectories: true)
            for side in 0..<2 {
                try FileManager.default.copyItem(atPath: photos[index * 2 + side], toPath: "\(poster)/\(side + 1).jpg")
            }
        }
        return folder
    }

    /// `lines` posters over 300 small stored images: first import, then the same again.
    static func manifest(_ context: BenchContext, lines: Int) throws {
        let files = try manifestFiles(context, lines: lines)
        let folder = files.folder
        let manifest = files.manifest
        let imageCount = files.images
        let store = try context.freshFolder("import-manifest-store")
        let setup = try Shell.measure([context.tenbin, "--store", store, "import", "\(folder)/pairs.jsonl"])
        guard setup.status == 0 else { throw BenchError("storing the manifest's images exited \(setup.status)") }
        var table = Table(
            "\(lines) manifest lines over \(imageCount) stored images", "time", "posters/s", "CPU time", "posters per CPU-second",
            "peak RSS")
        var first: Shell.Measurement?
        for label in ["first import (all added)", "second import (all skipped)"] {
            let run = try Shell.measure([context.tenbin, "--store", store, "import", manifest])
            guard run.status == 0 else { throw BenchError("tenbin import \(manifest) exited \(run.status)") }
            first = first ?? run
            table.add(
                label, Format.ms(run.seconds), Format.number(Double(lines) / run.seconds, digits: 0), Format.ms(run.cpuSeconds),
                Format.number(Double(lines) / run.cpuSeconds, digits: 0), Format.mb(run.peakRSS))
        }
        if lines < 1_000_000, let first {
            // Per-poster cost grows slowly with the store (B-tree depth, the index's merges), so the
            // rate measured here is an upper bound for a million.
            let rate = Double(lines) / first.seconds
            table.add(
                "1,000,000 lines: EXTRAPOLATED from the first import above, not measured", Format.ms(1_000_000 / rate),
                "≤ \(Format.number(rate, digits: 0))", Format.ms(first.cpuSeconds * 1_000_000 / Double(lines)), "", "")
        }
        table.print()
        print(
            "\nOne run each (whole processes). Texts: 20–80 characters (uniform) of hiragana, katakana, kanji, ASCII and "
                + "full-width words, ASCII and ideographic spaces, 0–5 hashtags (uniform). Aim: ≥ 20,000 posters/s on two cores.")
        print()
        try ImportFloor.run(context, manifest: manifest, lines: lines, importRate: first.map { Double(lines) / $0.seconds })
    }

    /// A manifest of `lines` generated posters over 300 small images, and `pairs.jsonl` (one
    /// poster per pair of those images, to store them first), made once and cached in the
    /// scratch folder. Also used by the `postgres` section.
    static func manifestFiles(_ context: BenchContext, lines: Int) throws -> (folder: String, manifest: String, pairs: String, images: Int)
    {
        let folder = "\(context.scratch)/import-manifest"
        try FileManager.default.createDirectory(atPath: "\(folder)/images", withIntermediateDirectories: true)
        let imageCount = 300
        let codec = ImageCodec()
        for index in 0..<imageCount where !FileManager.default.fileExists(atPath: "\(folder)/images/\(index).jpg") {
            var pixels = [UInt8](repeating: 0, count: 64 * 48 * 3)
            for offset in pixels.indices { pixels[offset] = UInt8(truncatingIfNeeded: offset &* (index + 7) / 5) }
            let image = try codec.encode(PixelBuffer(width: 64, height: 48, channels: 3, pixels: pixels), source: "generated \(index)")
            try Data(image.bytes).write(to: URL(fileURLWithPath: "\(folder)/images/\(index).jpg"))
        }
        // Store the images first (one poster per pair), untimed: the manifest runs over stored images.
        let pairs = (0..<imageCount / 2).map { #"{"image1": "images/\#($0 * 2).jpg", "image2": "images/\#($0 * 2 + 1).jpg"}"# }
        try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: "\(folder)/pairs.jsonl"))
        let manifest = "\(folder)/posters-real-\(lines).jsonl"
        if !FileManager.default.fileExists(atPath: manifest) {
            // Written under another name first, so an interrupted run never leaves half a manifest.
            let partial = manifest + ".partial"
            guard FileManager.default.createFile(atPath: partial, contents: nil) else { throw BenchError("cannot create \(partial)") }
            let output = try FileHandle(forWritingTo: URL(fileURLWithPath: partial))
            var chunk = ""
            var random = Random(seed: 42)
            for _ in 0..<lines {
                let first = random.next(imageCount)
                let second = (first + 1 + random.next(imageCount - 1)) % imageCount
                let contents = ManifestText.contents(&random)
                let hashtags = ManifestText.hashtags(&random).map { #""\#($0)""# }.joined(separator: ", ")
                // The generated words hold no quote, backslash or control character, so they need no escaping.
                chunk +=
                    #"{"image1": "images/\#(first).jpg", "image2": "images/\#(second).jpg", "contents": "\#(contents)", "hashtags": [\#(hashtags)]}"#
                    + "\n"
                if chunk.utf8.count > 1 << 20 {
                    output.write(Data(chunk.utf8))
                    chunk = ""
                }
            }
            output.write(Data(chunk.utf8))
            try output.close()
            try FileManager.default.moveItem(atPath: partial, toPath: manifest)
        }
        return (folder, manifest, "\(folder)/pairs.jsonl", imageCount)
    }
}
