import Foundation
import TenbinKit

/// Re-encoding large photos: tenbin's codec against libjpeg-turbo's own tools doing the same
/// work (`djpeg -scale N/8 | cjpeg -quality 50`, N the shrink tenbin picks), one core each.
enum ReencodeBenchmark {
    static func run(_ context: BenchContext) throws {
        // 12 MP photos decode at full size (half of 4000 is under 2048); 20 MP ones at 1/2.
        let photos =
            try context.photos(count: 4, width: 4000, height: 3000) + context.photos(count: 2, width: 5472, height: 3648, quality: 92)
        let codec = ImageCodec()
        let rounds = 5
        var rows = Table("photo", "size", "scale", "tenbin (in-process)", "djpeg → cjpeg", "ratio", "decode+resample / encode")
        var ratios = Samples()
        var tenbinTotal = 0.0
        var referenceTotal = 0.0
        for photo in photos {
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: photo)))
            let header = try codec.probe(bytes, source: photo)
            let target = Resampler.fitting(width: header.width, height: header.height, maxEdge: codec.encoding.maxEdge)
            let scale = ImageCodec.jpegScale(width: header.width, height: header.height, atLeast: target)
            var ours = Samples()
            var theirs = Samples()
            var stages = [Samples(), Samples()]
            for _ in 0..<rounds {
                // The same work in stages, to show where the time goes.
                var mark = DispatchTime.now().uptimeNanoseconds
                func lap(_ stage: Int) {
                    let now = DispatchTime.now().uptimeNanoseconds
                    stages[stage].add(Double(now - mark) / 1e9)
                    mark = now
                }
                let decoded = try codec.decode(bytes, source: photo, maxEdge: codec.encoding.maxEdge)
                lap(0)
                _ = try codec.encode(decoded, source: photo)
                lap(1)

                let start = DispatchTime.now().uptimeNanoseconds
                _ = try codec.reencode(bytes, source: photo)
                ours.add(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                let pipeline = try Shell.shell("djpeg -scale \(scale)/8 '\(photo)' | cjpeg -quality 50 > /dev/null")
                theirs.add(pipeline.seconds)
            }
            ratios.add(ours.median / theirs.median)
            tenbinTotal += ours.median
            referenceTotal += theirs.median
            rows.add(
                URL(fileURLWithPath: photo).lastPathComponent, "\(header.width)×\(header.height)", "\(scale)/8",
                Format.ms(ours.median), Format.ms(theirs.median), Format.ratio(ours.median / theirs.median),
                stages.map { Format.ms($0.median) }.joined(separator: " / "))
        }
        rows.add("all", "", "", Format.ms(tenbinTotal), Format.ms(referenceTotal), Format.ratio(tenbinTotal / referenceTotal), "")
        rows.print()
        print("\nMedian of \(rounds) rounds per photo, one core. The reference includes starting two processes")
        print("(~2 ms) and encodes at the shrunk size; tenbin streams rows from libjpeg into an area-averaging")
        print("resampler to exactly 2048 px, then encodes. Aim: within 1.10×.")
        print("Median ratio: \(Format.ratio(ratios.median))")
    }
}
