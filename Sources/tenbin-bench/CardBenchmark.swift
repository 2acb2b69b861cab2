import Foundation
import TenbinKit
import TenbinServer

/// A poster's preview card (`/p/ID/card.jpg`) drawn in process for each sample poster: both
/// pictures covering their halves, the question laid out by pango in IPA P Gothic, the bar, and
/// the JPEG encoding; against encoding the finished card alone, timed in the same run. The
/// first drawing (which loads pango and cairo and reads the fonts) is reported on its own.
enum CardBenchmark {
    static let rounds = 5

    static func run(_ context: BenchContext) throws {
        let codec = ImageCodec(encoding: EncodingOptions(jpegQuality: 82))
        let folders = try FileManager.default.contentsOfDirectory(atPath: "SampleImages").sorted()
        var pairs: [(PixelBuffer, PixelBuffer, PreviewCard.Face)] = []
        for (index, folder) in folders.enumerated() {
            let path = "SampleImages/\(folder)"
            let files = try FileManager.default.contentsOfDirectory(atPath: path).sorted().filter { !$0.hasSuffix(".txt") }
            guard files.count == 2 else { continue }
            let pictures = try files.map { name in
                try codec.decode(
                    try codec.readUpload(at: "\(path)/\(name)"), size: .thumbnail(width: 900, height: 900), source: name)
            }
            let question = (try? String(contentsOfFile: "\(path)/post.txt", encoding: .utf8))?.split(separator: "\n").first ?? ""
            let poster = Poster(
                id: Int64(index + 1), contents: String(question), hashtags: [], good1: 3 * index, good2: 7,
                createdAt: Timestamp(secondsSince1970: 0), images: [])
            pairs.append((pictures[0], pictures[1], PreviewCard.Face(poster)))
        }
        guard let first = pairs.first else { throw BenchError("no sample poster pairs in SampleImages") }
        let started = Date()
        _ = try PreviewCard.draw(first.0, first.1, face: first.2)
        let cold = Date().timeIntervalSince(started)

        var drawn = Samples()
        var encodedOnly = Samples()
        var bytes = Samples()
        for _ in 0..<rounds {
            for (left, right, face) in pairs {
                let start = Date()
                let drawing = try PreviewCard.draw(left, right, face: face)
                let jpeg = try codec.encode(drawing.pixels, source: "card")
                drawn.add(Date().timeIntervalSince(start))
                bytes.add(Double(jpeg.bytes.count))
                let encodeStart = Date()
                _ = try codec.encode(drawing.pixels, source: "card")
                encodedOnly.add(Date().timeIntervalSince(encodeStart))
            }
        }
        var table = Table("what", "median of \(drawn.values.count) (\(pairs.count) posters)", "vs encoding alone", "JPEG")
        table.add(
            "draw a card (pictures, text, bar) and encode it", Format.ms(drawn.median), Format.ratio(drawn.median / encodedOnly.median),
            String(format: "%.0f KB", bytes.median / 1024))
        table.add("encode a drawn 1200×630 card alone (reference)", Format.ms(encodedOnly.median), Format.ratio(1), "")
        table.add("the first card of the process (loads pango, cairo, fonts)", Format.ms(cold), "", "")
        table.print()
    }
}
