import Foundation
import TenbinKit

/// Whole commands as users time them, each against its reference in the same run, rounds
/// interleaved: `tenbin post` of two large photos and `tenbin import --jobs 1` of ten against
/// libjpeg-turbo's own pipeline doing the same re-encoding, and a one-character search at a
/// million posters against `tenbin list` of the same store.
enum WholeCommandBenchmark {
    static func run(_ context: BenchContext) throws {
        print("Load average before: \(MachineState.loadAverage()) (the ratios, not the times, are the point).\n")
        try post(context)
        print()
        try importPhotos(context)
        print()
        try search(context)
    }

    /// The reference for one photo: `djpeg` at the shrink tenbin picks, piped to `cjpeg`.
    static func pipeline(_ photo: String) throws -> String {
        let codec = ImageCodec()
        let header = try codec.probe(Array(Data(contentsOf: URL(fileURLWithPath: photo))), source: photo)
        let target = Resampler.fitting(width: header.width, height: header.height, maxEdge: codec.encoding.maxEdge)
        let scale = ImageCodec.jpegScale(width: header.width, height: header.height, atLeast: target)
        return "djpeg -scale \(scale)/8 '\(photo)' | cjpeg -quality 50 > /dev/null"
    }

    /// The reference pipelines one after another: summed wall time, CPU time and the largest peak.
    static func reference(_ scripts: [String]) throws -> Shell.Measurement {
        var (seconds, cpu, peak) = (0.0, 0.0, 0)
        for script in scripts {
            let run = try Shell.shell(script)
            guard run.status == 0 else { throw BenchError("\(script) exited \(run.status)") }
            (seconds, cpu, peak) = (seconds + run.seconds, cpu + run.cpuSeconds, max(peak, run.peakRSS))
        }
        return Shell.Measurement(seconds: seconds, cpuSeconds: cpu, peakRSS: peak, status: 0)
    }

    /// Interleaved rounds of the reference pipelines and of a tenbin command (its store made
    /// by `prepare`, untimed): their samples and the command's peak RSS.
    static func interleave(
        rounds: Int, reference scripts: [String], prepare: () throws -> String, command: (String) -> [String]
    ) throws -> (theirs: Samples, theirsCPU: Samples, ours: Samples, oursCPU: Samples, peak: Int) {
        var (theirs, theirsCPU, ours, oursCPU, peak) = (Samples(), Samples(), Samples(), Samples(), 0)
        for _ in 0..<rounds {
            let run = try reference(scripts)
            theirs.add(run.seconds)
            theirsCPU.add(run.cpuSeconds)
            let arguments = command(try prepare())
            let measured = try Shell.measure(arguments)
            guard measured.status == 0 else { throw BenchError("\(arguments.joined(separator: " ")) exited \(measured.status)") }
            ours.add(measured.seconds)
            oursCPU.add(measured.cpuSeconds)
            peak = max(peak, measured.peakRSS)
        }
        return (theirs, theirsCPU, ours, oursCPU, peak)
    }

    /// `tenbin post` of a 12 MP and a 20 MP photo into a store holding one poster (copied fresh
    /// each round, untimed), against the two pipelines.
    static func post(_ context: BenchContext) throws {
        let photos = [
            try context.photos(count: 1, width: 4000, height: 3000)[0],
            try context.photos(count: 1, width: 5472, height: 3648, quality: 92)[0],
        ]
        let small = try context.photos(count: 2, width: 640, height: 480)
        let template = try context.freshFolder("whole-post-template")
        try Shell.run(context.tenbin, "--store", template, "post", small[0], small[1], "--text", "どっちが好き？")
        let rounds = Int(ProcessInfo.processInfo.environment["TENBIN_BENCH_WHOLE_ROUNDS"] ?? "") ?? 9
        let run = try interleave(
            rounds: rounds, reference: try photos.map(pipeline),
            prepare: {
                let store = try context.freshFolder("whole-post-store")
                try FileManager.default.removeItem(atPath: store)
                try FileManager.default.copyItem(atPath: template, toPath: store)
                return store
            },
            command: { [context.tenbin, "--store", $0, "post", photos[0], photos[1], "--text", "どっちが好き？"] })
        var table = Table("a post of a 12 MP and a 20 MP photo", "time", "CPU time", "peak RSS", "time vs reference")
        table.add(
            "reference: djpeg -scale N/8 | cjpeg -quality 50 of both", Format.ms(run.theirs.median), Format.ms(run.theirsCPU.median), "",
            "1.00×")
        table.add(
            "tenbin post (whole process, durable when it returns)", Format.ms(run.ours.median), Format.ms(run.oursCPU.median),
            Format.mb(run.peak), Format.ratio(run.ours.median / run.theirs.median))
        table.print()
        print(
            "\nMedian of \(rounds) interleaved rounds. Aim (issue 33): ≤ 0.80× in time; CPU \(Format.ratio(run.oursCPU.median / run.theirsCPU.median)) "
                + "(tenbin decodes the two photos on two cores; the reference runs djpeg and cjpeg side by side).")
    }

    /// `tenbin import --jobs 1` of ten photos (eight 12 MP, two 20 MP, as five poster folders)
    /// against a pipeline per photo.
    static func importPhotos(_ context: BenchContext) throws {
        let photos =
            try context.photos(count: 8, width: 4000, height: 3000) + context.photos(count: 2, width: 5472, height: 3648, quality: 92)
        let folder = try ImportBenchmark.posterFolders(photos, in: context.freshFolder("whole-import-photos"))
        let rounds = Int(ProcessInfo.processInfo.environment["TENBIN_BENCH_WHOLE_ROUNDS"] ?? "") ?? 5
        let run = try interleave(
            rounds: rounds, reference: try photos.map(pipeline), prepare: { try context.freshFolder("whole-import-store") },
            command: { [context.tenbin, "--store", $0, "import", folder, "--jobs", "1"] })
        var table = Table("10 photos (8 × 12 MP, 2 × 20 MP)", "time", "CPU time", "peak RSS", "time vs reference")
        table.add(
            "reference: djpeg -scale N/8 | cjpeg -quality 50, a process per photo", Format.ms(run.theirs.median),
            Format.ms(run.theirsCPU.median), "", "1.00×")
        table.add(
            "tenbin import --jobs 1 (whole process)", Format.ms(run.ours.median), Format.ms(run.oursCPU.median), Format.mb(run.peak),
            Format.ratio(run.ours.median / run.theirs.median))
        table.print()
        print(
            "\nMedian of \(rounds) interleaved rounds. Aim (issue 33): ≤ 1.00× in time, peak < 120 MB; CPU "
                + "\(Format.ratio(run.oursCPU.median / run.theirsCPU.median)). Baseline photos, as phones write them; a progressive "
                + "photo's peak is libjpeg's coefficient buffer (the memory section's progressive rows).")
    }

    /// `tenbin search` of one character at 1,000,000 posters against `tenbin list` of the same
    /// store (the search section's, built once and cached), as whole processes.
    static func search(_ context: BenchContext) throws {
        let store = try SearchBenchmark.store(size: 1_000_000, context: context).path
        let rounds = Int(ProcessInfo.processInfo.environment["TENBIN_BENCH_WHOLE_ROUNDS"] ?? "") ?? 31
        let words = ["自", "の", "A"]
        var list = Samples()
        var searches = Array(repeating: Samples(), count: words.count)
        for _ in 0..<rounds {
            let listed = try Shell.measure([context.tenbin, "--store", store, "list", "--limit", "20"])
            guard listed.status == 0 else { throw BenchError("tenbin list exited \(listed.status)") }
            list.add(listed.seconds)
            for (index, word) in words.enumerated() {
                let found = try Shell.measure([context.tenbin, "--store", store, "search", word, "--limit", "20"])
                guard found.status == 0 else { throw BenchError("tenbin search \(word) exited \(found.status)") }
                searches[index].add(found.seconds)
            }
        }
        var table = Table("1,000,000 posters, 20 shown", "median", "p90", "over list (median)")
        table.add("tenbin list --limit 20", Format.ms(list.median), Format.ms(list.percentile(90)), "")
        for (index, word) in words.enumerated() {
            table.add(
                "tenbin search \(word) --limit 20", Format.ms(searches[index].median), Format.ms(searches[index].percentile(90)),
                String(format: "%+.2f ms", (searches[index].median - list.median) * 1000))
        }
        table.print()
        print("\n\(rounds) interleaved rounds. Aim (issue 33): ≤ +3 ms over list in every run.")
    }
}
