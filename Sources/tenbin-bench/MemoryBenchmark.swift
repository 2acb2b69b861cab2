import Foundation

/// Peak resident memory of `tenbin post` with a 20-megapixel JPEG and a 49-megapixel PNG.
enum MemoryBenchmark {
    static func run(_ context: BenchContext) throws {
        let big = try context.photos(count: 1, width: 5472, height: 3648, quality: 92)[0]
        let small = try context.photos(count: 1, width: 640, height: 480)[0]
        let png = try context.bigPNG()
        var table = Table("tenbin post", "peak RSS", "time")
        let cases = [
            ("20 MP + small", [big, small]), ("20 MP + 20 MP (decoded in parallel)", [big, big]),
            ("49 MP PNG (7000×7000) + small", [png, small]),
        ]
        for (label, images) in cases {
            let store = try context.freshFolder("memory-store")
            let run = try Shell.measure([context.tenbin, "--store", store, "post", images[0], images[1]])
            guard run.status == 0 else { throw BenchError("tenbin post exited \(run.status)") }
            table.add(label, Format.mb(run.peakRSS), Format.ms(run.seconds))
        }
        let baseline = try Shell.measure([context.tenbin, "--version"])
        table.add("tenbin --version (the floor)", Format.mb(baseline.peakRSS), Format.ms(baseline.seconds))
        table.print()
        print("\nPeak RSS of the tenbin process (GNU time). Aim: under 120 MB for JPEG, under 100 MB for the")
        let onDisk = try FileManager.default.attributesOfItem(atPath: png)[.size] as? Int ?? 0
        print("49 MP PNG (\(Format.mb(onDisk)) on disk; its rows stream into the resampler).\n")
        try progressive(context, big: big, small: small)
    }
}

extension MemoryBenchmark {
    /// A progressive JPEG is decoded only after its last scan, so libjpeg keeps every DCT
    /// coefficient of the whole frame (two bytes each, whatever the scale asked for): the
    /// peak a photo can drive, measured against djpeg decoding the same file at the same scale.
    static func progressive(_ context: BenchContext, big: String, small: String) throws {
        let sampled = "\(context.scratch)/big-progressive-420.jpg"
        let full = "\(context.scratch)/big-progressive-444.jpg"
        if !FileManager.default.fileExists(atPath: sampled) {
            try Shell.run("/bin/sh", "-c", "jpegtran -progressive -copy none '\(big)' > '\(sampled)'")
        }
        if !FileManager.default.fileExists(atPath: full) {
            try Shell.run("/bin/sh", "-c", "djpeg '\(big)' | cjpeg -progressive -sample 1x1 -quality 92 > '\(full)'")
        }
        var table = Table("progressive 20 MP JPEG (5472×3648) + small", "tenbin post peak RSS", "djpeg -scale 4/8 peak RSS", "difference")
        for (label, photo) in [("chroma 4:2:0", sampled), ("chroma 4:4:4", full)] {
            let store = try context.freshFolder("memory-store")
            let post = try Shell.measure([context.tenbin, "--store", store, "post", photo, small])
            guard post.status == 0 else { throw BenchError("tenbin post exited \(post.status)") }
            let djpeg = try Shell.measure(["djpeg", "-scale", "4/8", "-outfile", "/dev/null", photo])
            guard djpeg.status == 0 else { throw BenchError("djpeg exited \(djpeg.status)") }
            table.add(label, Format.mb(post.peakRSS), Format.mb(djpeg.peakRSS), Format.mb(post.peakRSS - djpeg.peakRSS))
        }
        table.print()
        print(
            "\nlibjpeg holds a progressive frame's coefficients whole (4:2:0: 1.5 × 2 bytes a pixel; 4:4:4: 3 × 2), "
                + "djpeg as much as tenbin; the difference is tenbin's own floor and the upload's bytes.")
    }
}

extension BenchContext {
    /// A 7000×7000 (49-megapixel) RGB PNG: smooth gradients with a fine pattern, small enough
    /// on disk to pass the 50 MiB upload limit.
    func bigPNG() throws -> String {
        let path = "\(scratch)/big-7000x7000.png"
        if !FileManager.default.fileExists(atPath: path) {
            try Shell.run(
                "convert", "-size", "7000x7000", "gradient:orange-navy", "(", "-size", "7000x7000", "pattern:checkerboard", ")",
                "-compose", "multiply", "-composite", "-depth", "8", "-type", "TrueColor", path)
        }
        return path
    }
}
