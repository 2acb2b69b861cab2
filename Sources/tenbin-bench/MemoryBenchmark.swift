import Foundation

/// Peak resident memory of `tenbin post` with a 20-megapixel JPEG.
enum MemoryBenchmark {
    static func run(_ context: BenchContext) throws {
        let big = try context.photos(count: 1, width: 5472, height: 3648, quality: 92)[0]
        let small = try context.photos(count: 1, width: 640, height: 480)[0]
        var table = Table("tenbin post", "peak RSS", "time")
        for (label, images) in [("20 MP + small", [big, small]), ("20 MP + 20 MP (decoded in parallel)", [big, big])] {
            let store = try context.freshFolder("memory-store")
            let run = try Shell.measure([context.tenbin, "--store", store, "post", images[0], images[1]])
            guard run.status == 0 else { throw BenchError("tenbin post exited \(run.status)") }
            table.add(label, Format.mb(run.peakRSS), Format.ms(run.seconds))
        }
        let baseline = try Shell.measure([context.tenbin, "--version"])
        table.add("tenbin --version (the floor)", Format.mb(baseline.peakRSS), Format.ms(baseline.seconds))
        table.print()
        print("\nPeak RSS of the tenbin process (GNU time). Aim: under 120 MB.")
    }
}
