import Foundation
import TenbinKit

/// Re-encoding large photos: tenbin's codec against libjpeg-turbo's own tools doing the same
/// work (`djpeg -scale N/8 | cjpeg -quality 50`, N the shrink tenbin picks), one core each.
enum ReencodeBenchmark {
    static func run(_ context: BenchContext) throws {
        let photos = try context.photos(count: 6, width: 4000, height: 3000)
        let codec = ImageCodec()
        let rounds = 5
        var rows = Table("photo", "size", "scale", "tenbin (in-process)", "djpeg | cjpeg", "ratio")
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
            for _ in 0..<rounds {
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
                Format.ms(ours.median), Format.ms(theirs.median), Format.ratio(ours.median / theirs.median))
        }
        rows.add("all", "", "", Format.ms(tenbinTotal), Format.ms(referenceTotal), Format.ratio(tenbinTotal / referenceTotal))
        rows.print()
        print("\nMedian of \(rounds) rounds per photo. The reference includes starting two processes (~2 ms);")
        print("tenbin also resamples to exactly 2048 px and applies EXIF orientation. Aim: within 1.10×.")
        print("Median ratio: \(Format.ratio(ratios.median))")
    }
}
