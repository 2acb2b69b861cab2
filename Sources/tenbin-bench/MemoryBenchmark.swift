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
        print("49 MP PNG (\(Format.mb(onDisk)) on disk; its rows stream into the resampler).")
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
