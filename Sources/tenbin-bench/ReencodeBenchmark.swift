import Foundation
import TenbinKit

#if canImport(Glibc)
    import Glibc
#endif

/// Re-encoding large photos: tenbin's codec against libjpeg-turbo's own tools doing the same
/// work (`djpeg -scale N/8 | cjpeg -quality 50`, N the shrink tenbin picks), one core each,
/// and the quality that speed costs, as PSNR against an exact reference.
enum ReencodeBenchmark {
    static func run(_ context: BenchContext) throws {
        // 12 MP photos decode at full size (half of 4000 is under 2048); 20 MP ones at 1/2.
        let photos =
            try context.photos(count: 4, width: 4000, height: 3000) + context.photos(count: 2, width: 5472, height: 3648, quality: 92)
        // One thread does all the work (no shrink thread beside the decoder), so its CPU clock
        // sees all of it: the codec's cost against the pipeline's, not how it is spread.
        var codec = ImageCodec()
        codec.shrinkThread = .never
        var exact = codec
        exact.exactDecoding = true
        let rounds = 5
        var rows = Table(
            "photo", "size", "scale", "tenbin CPU", "djpeg → cjpeg CPU", "ratio", "wall ratio", "decode+resample / encode",
            "PSNR exact → fast")
        var ratios = Samples()
        var totals = (ours: 0.0, theirs: 0.0, oursWall: 0.0, theirsWall: 0.0)
        var worstLoss = 0.0
        for photo in photos {
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: photo)))
            let header = try codec.probe(bytes, source: photo)
            let target = Resampler.fitting(width: header.width, height: header.height, maxEdge: codec.encoding.maxEdge)
            let scale = ImageCodec.jpegScale(width: header.width, height: header.height, atLeast: target)
            var ours = Samples()
            var theirs = Samples()
            var oursWall = Samples()
            var theirsWall = Samples()
            var stages = [Samples(), Samples()]
            for _ in 0..<rounds {
                // The same work in stages, to show where the time goes.
                var mark = threadCPU()
                func lap(_ stage: Int) {
                    let now = threadCPU()
                    stages[stage].add(now - mark)
                    mark = now
                }
                let decoded = try codec.decode(bytes, source: photo, maxEdge: codec.encoding.maxEdge)
                lap(0)
                _ = try codec.encode(decoded, source: photo)
                lap(1)

                let start = (cpu: threadCPU(), wall: DispatchTime.now().uptimeNanoseconds)
                _ = try codec.reencode(bytes, source: photo)
                ours.add(threadCPU() - start.cpu)
                oursWall.add(Double(DispatchTime.now().uptimeNanoseconds - start.wall) / 1e9)
                let pipeline = try Shell.shell("djpeg -scale \(scale)/8 '\(photo)' | cjpeg -quality 50 > /dev/null")
                theirs.add(pipeline.cpuSeconds)
                theirsWall.add(pipeline.seconds)
            }
            // Quality: the stored image decoded, against the photo decoded exactly at full
            // size and area-averaged to the same size (what a perfect decoder would give).
            let reference = try exact.decode(bytes, source: photo, maxEdge: nil)
            let truth = Resampler.resize(reference, width: target.width, height: target.height)
            let fastPSNR = try psnr(exact.decode(codec.reencode(bytes, source: photo).bytes, source: "out", maxEdge: nil), truth)
            let exactPSNR = try psnr(exact.decode(exact.reencode(bytes, source: photo).bytes, source: "out", maxEdge: nil), truth)
            worstLoss = max(worstLoss, exactPSNR - fastPSNR)

            ratios.add(ours.median / theirs.median)
            totals.ours += ours.median
            totals.theirs += theirs.median
            totals.oursWall += oursWall.median
            totals.theirsWall += theirsWall.median
            rows.add(
                URL(fileURLWithPath: photo).lastPathComponent, "\(header.width)×\(header.height)", "\(scale)/8",
                Format.ms(ours.median), Format.ms(theirs.median), Format.ratio(ours.median / theirs.median),
                Format.ratio(oursWall.median / theirsWall.median), stages.map { Format.ms($0.median) }.joined(separator: " / "),
                "\(decibels(exactPSNR)) → \(decibels(fastPSNR))")
        }
        rows.add(
            "all", "", "", Format.ms(totals.ours), Format.ms(totals.theirs), Format.ratio(totals.ours / totals.theirs),
            Format.ratio(totals.oursWall / totals.theirsWall), "", "worst loss \(String(format: "%.3f", worstLoss)) dB")
        rows.print()
        print("\nMedian of \(rounds) rounds per photo. CPU: tenbin's thread against the user+system time of both")
        print("reference processes (so one core each, whatever else the machine runs); the wall ratio is")
        print("shown beside it. The reference encodes at the shrunk size; tenbin streams rows from libjpeg")
        print("into an area-averaging resampler to exactly 2048 px, then encodes. Aim: within 0.80×.")
        print("PSNR (RGB, dB) of the stored JPEG against the photo decoded exactly and area-averaged to the")
        print("same size: with libjpeg's smooth chroma upsampling → with the plain upsampling tenbin uses")
        print("when it shrinks by 1.25× or more. Allowed loss: 0.1 dB (the fast IDCT lost 0.25 dB and was dropped).")
        print("Median ratio: \(Format.ratio(ratios.median))")
    }

    /// CPU seconds the calling thread has used.
    static func threadCPU() -> Double {
        var time = timespec()
        _ = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)  // cannot fail for this clock
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Peak signal-to-noise ratio of two same-sized images, in dB.
    private static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) throws -> Double {
        guard a.width == b.width, a.height == b.height, a.channels == b.channels else {
            throw BenchError("PSNR of \(a.width)×\(a.height)×\(a.channels) against \(b.width)×\(b.height)×\(b.channels)")
        }
        var sum = 0.0
        a.pixels.withUnsafeBufferPointer { x in
            b.pixels.withUnsafeBufferPointer { y in
                var squares = 0
                for i in 0..<x.count {
                    let d = Int(x[i]) - Int(y[i])
                    squares += d * d
                }
                sum = Double(squares)
            }
        }
        let mse = sum / Double(a.pixels.count)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    private static func decibels(_ value: Double) -> String { String(format: "%.2f", value) }
}
