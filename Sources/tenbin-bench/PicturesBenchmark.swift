import Foundation

/// `tenbin list --image-mode MODE` on a page of the ten sample posters: each libchafa mode
/// against tenbin's own half blocks, timed in the same run, with the bytes each writes.
enum PicturesBenchmark {
    static let modes = ["halfblock", "symbols", "kitty", "sixel", "iterm"]
    static let runs = 7

    static func run(_ context: BenchContext) throws {
        let store = try context.freshFolder("pictures")
        try Shell.run(context.tenbin, "--store", store, "import", "SampleImages")
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "80"
        var medians: [String: Double] = [:]
        var table = Table("mode", "median of \(runs) (10 posters)", "vs halfblock", "output")
        for mode in modes {
            let arguments = [context.tenbin, "--store", store, "list", "--limit", "10", "--image-mode", mode]
            var samples = Samples()
            for _ in 0..<runs {
                let run = try Shell.measure(arguments, environment: environment)
                guard run.status == 0 else { throw BenchError("tenbin list --image-mode \(mode) exited \(run.status)") }
                samples.add(run.seconds)
            }
            medians[mode] = samples.median
            let output = "\(store)/\(mode).out"
            try Shell.run(
                "/bin/sh", "-c", "COLUMNS=80 \"$0\" --store \"$1\" list --limit 10 --image-mode \"$2\" > \"$3\"",
                context.tenbin, store, mode, output)
            let bytes = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
            table.add(
                mode, Format.ms(samples.median), Format.ratio(samples.median / (medians["halfblock"] ?? samples.median)),
                Format.mb(bytes))
        }
        table.print()
    }
}
