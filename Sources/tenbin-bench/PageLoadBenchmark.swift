import Foundation
import TenbinKit

/// The board's first screen and a poster's page (`/p/ID`) as a mid-range phone on slow 4G
/// loads them, in headless chromium over the DevTools protocol (`scripts/page-load.py`: 390×844
/// at DPR 3, CPU slowed 4×, Lighthouse's slow 4G): bytes transferred and Largest Contentful
/// Paint, with the bench's generated 1280×960 photos as the posters' pictures. With
/// `TENBIN_BENCH_BASELINE=PATH` (say a release build of the last landing) the same pages of
/// that build, on a store of its own with the same posters, are measured in the same run.
enum PageLoadBenchmark {
    static let posters = 20
    static let runs = 3
    static let script = "scripts/page-load.py"

    /// One page's load as the script reports it.
    struct Load {
        var bytes: Double
        var lcp: Double
        var kinds: [String: Double]
        var widths: [String]
    }

    static func run(_ context: BenchContext) throws {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver", "/usr/bin/python3"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            throw BenchError("\(tool) is missing: install chromium, chromium-driver and python3-selenium (make bench does)")
        }
        let folder = try context.freshFolder("pageload")
        let photos = try context.photos(count: 10, width: 1280, height: 960)
        let drafts = (0..<posters).map { index in
            (photos[index % photos.count], photos[(index + 3) % photos.count], "ベンチマーク \(index)：どっち？")
        }
        let board = try Board(folder: "\(folder)/store", create: true)
        for (left, right, text) in drafts {
            let poster = try board.post(PosterDraft(image1: .file(left), image2: .file(right), contents: text, hashtags: ["bench"]))
            _ = try board.vote(id: poster.id, side: .first, times: 3 + Int(poster.id % 5))
            _ = try board.vote(id: poster.id, side: .second, times: 2)
        }
        board.close()
        var builds: [(name: String, port: UInt16, server: Child)] = []
        defer { for build in builds { _ = build.server.interrupt() } }
        let port = try LoopbackHTTP.freePort()
        builds.append(("this build", port, try serve(context.tenbin, store: "\(folder)/store", port: port)))
        if let baseline = ProcessInfo.processInfo.environment["TENBIN_BENCH_BASELINE"].flatMap({ $0.isEmpty ? nil : $0 }) {
            let store = "\(folder)/baseline-store"
            for (left, right, text) in drafts {
                try Shell.run(baseline, "--store", store, "post", left, right, "--text", text, "--tag", "bench")
            }
            let port = try LoopbackHTTP.freePort()
            builds.append(("baseline (TENBIN_BENCH_BASELINE)", port, try serve(baseline, store: store, port: port)))
        }
        var table = Table(
            "page", "DPR", "build", "bytes", "images", "script + css", "html", "fonts", "LCP", "thumbnail widths", "charts after load")
        // DPR 3 is the profile the aims are for; DPR 2 shows the thumbnail a sharper-than-needed
        // width would cost there.
        for dpr in [3, 2] {
            for build in builds {
                let urls = ["/", "/p/\(posters)"].map { "http://127.0.0.1:\(build.port)\($0)" }
                let loads = try measure(urls, dpr: dpr)
                for (path, load) in zip(["board, first screen (/)", "poster page (/p/\(posters))"], loads) {
                    table.add(
                        path, String(dpr), build.name, kb(load.bytes), kb(load.kinds["images"] ?? 0),
                        kb((load.kinds["script"] ?? 0) + (load.kinds["css"] ?? 0)),
                        kb(load.kinds["html"] ?? 0), kb(load.kinds["fonts"] ?? 0), String(format: "%.2f s", load.lcp / 1000),
                        load.widths.joined(separator: ", "),
                        kb(load.kinds["charts"] ?? 0))
                }
            }
        }
        table.print()
        print(
            "\nMedians of \(runs) loads, each in a fresh browser (empty cache): 390×844 at DPR 3 (and 2), CPU 4× slower, 150 ms round trips,"
        )
        print("1.6 Mbit/s down, 750 kbit/s up. Bytes as transferred (headers included) until the network is quiet for 1.5 s after")
        print(
            "the load event, without the charts the board's cards fetch after it (their own column). Aims: under 300 KB, LCP under 2.5 s.\n"
        )
    }

    private static func serve(_ binary: String, store: String, port: UInt16) throws -> Child {
        let server = try Child([binary, "--store", store, "serve", "--listen", "127.0.0.1:\(port)", "--no-rate-limit"])
        try LoopbackHTTP.waitForListener(port: port, seconds: 30)
        return server
    }

    /// Runs the script over `urls`, one JSON line each.
    private static func measure(_ urls: [String], dpr: Int) throws -> [Load] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, "--runs", String(runs), "--dpr", String(dpr)] + urls
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("\(script) failed (status \(process.terminationStatus))") }
        return try data.split(separator: UInt8(ascii: "\n")).map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                let bytes = object["bytes_median"] as? Double, let lcp = object["lcp_ms_median"] as? Double
            else { throw BenchError("\(script) printed an unexpected line: \(String(decoding: line, as: UTF8.self))") }
            let kinds = (object["kinds"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.doubleValue }
            return Load(bytes: bytes, lcp: lcp, kinds: kinds, widths: object["widths"] as? [String] ?? [])
        }
    }

    private static func kb(_ bytes: Double) -> String {
        String(format: "%.0f KB", bytes / 1024)
    }
}
