import Foundation

/// Shared set-up for benchmarks: where the built tools are, a scratch folder, and helpers to
/// time processes, make sample photos and print tables.
struct BenchContext {
    /// The release `tenbin` binary next to this one.
    let tenbin: String
    /// A scratch folder kept between runs (generated photos are cached here).
    let scratch: String

    init() throws {
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        tenbin = me.deletingLastPathComponent().appendingPathComponent("tenbin").path
        guard FileManager.default.isExecutableFile(atPath: tenbin) else {
            throw BenchError("no tenbin binary at \(tenbin); build it first (make bench does)")
        }
        scratch = ProcessInfo.processInfo.environment["TENBIN_BENCH_DIR"] ?? "/tmp/tenbin-bench"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    /// A fresh, empty folder under the scratch folder.
    func freshFolder(_ name: String) throws -> String {
        let path = "\(scratch)/\(name)"
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Photo-like JPEGs (seeded fractal clouds, so they compress like photos) of the given
    /// size, made once with ImageMagick and cached.
    func photos(count: Int, width: Int, height: Int, quality: Int = 90) throws -> [String] {
        let folder = "\(scratch)/photos-\(width)x\(height)-q\(quality)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return try (0..<count).map { index in
            let path = "\(folder)/photo-\(index).jpg"
            if !FileManager.default.fileExists(atPath: path) {
                let colours = [("orange", "navy"), ("green", "yellow"), ("skyblue", "brown"), ("red", "white"), ("purple", "gold")]
                let (a, b) = colours[index % colours.count]
                try Shell.run(
                    "convert", "-seed", "\(index + 1)", "-size", "\(width)x\(height)", "plasma:\(a)-\(b)",
                    "-quality", "\(quality)", "-sampling-factor", "2x2", path)
            }
            return path
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
