import Foundation
import TenbinKit

/// Blocked images: how far apart the perceptual hashes of a picture's copies are (re-encoded,
/// resized, cropped, another format) against how close distinct pictures come, for each
/// distance a blocklist could match within; and what hashing costs a post.
enum BlocklistBenchmark {
    /// One way a copy of a picture is made.
    struct Copy {
        let name: String
        let make: (PixelBuffer, String) throws -> [UInt8]
    }

    static func run(_ context: BenchContext) throws {
        let codec = ImageCodec()
        let bases = try samplePictures(context, codec: codec)
        let copies = try copyKinds(context)
        // Distance from each picture to each of its copies, per kind of copy (64: no hash).
        var apart = [[Int]](repeating: [], count: copies.count)
        var plain = 0
        var hashes: [PerceptualHash] = []
        var missed: [String: [String]] = [:]
        for (name, bytes) in bases {
            let pixels = try codec.decode(bytes, source: name, maxEdge: codec.encoding.maxEdge)
            guard let original = PerceptualHash(of: pixels) else {
                plain += 1
                continue
            }
            hashes.append(original)
            for (index, copy) in copies.enumerated() {
                let copied = try copy.make(pixels, name)
                let distance = try codec.perceptualHash(copied, source: name).map(original.distance) ?? 64
                apart[index].append(distance)
                if distance > ImageBlocklist.defaultDistance { missed[copy.name, default: []].append(name) }
            }
        }
        // Distinct pictures: the samples and thousands of generated ones.
        let generated = 3000
        for seed in 0..<generated {
            if let hash = PerceptualHash(of: SyntheticPicture.make(seed: UInt64(seed) + 1000, width: 160, height: 120)) {
                hashes.append(hash)
            } else {
                plain += 1
            }
        }
        var pairsWithin = [Int](repeating: 0, count: 65)
        var nearest = [Int](repeating: 64, count: hashes.count)
        for i in hashes.indices {
            for j in (i + 1)..<hashes.count {
                let distance = hashes[i].distance(to: hashes[j])
                pairsWithin[distance] += 1
                nearest[i] = min(nearest[i], distance)
                nearest[j] = min(nearest[j], distance)
            }
        }
        let pairs = hashes.count * (hashes.count - 1) / 2
        print(
            "\(bases.count) sample pictures with \(copies.count) copies of each; \(hashes.count) distinct pictures hashed "
                + "(\(generated) generated), \(pairs) pairs; \(plain) too plain to hash.\n")
        var table = Table(["D"] + copies.map(\.name) + ["all copies", "distinct pairs within D", "pictures with another within D"])
        for distance in [0, 2, 4, 6, 8, 10, 12, 14, 16, 20] {
            var cells = ["\(distance)"]
            var caught = 0
            var total = 0
            for index in copies.indices {
                let within = apart[index].filter { $0 <= distance }.count
                caught += within
                total += apart[index].count
                cells.append(percent(within, apart[index].count))
            }
            cells.append(percent(caught, total))
            let falsePairs = pairsWithin[0...distance].reduce(0, +)
            cells.append("\(falsePairs) (\(String(format: "%.5f", Double(falsePairs) / Double(pairs) * 100)) %)")
            cells.append(percent(nearest.filter { $0 <= distance }.count, nearest.count))
            table.add(cells)
        }
        table.print()
        print("\nThe board matches within D = \(ImageBlocklist.defaultDistance). Copies it misses:")
        for (kind, names) in missed.sorted(by: { $0.key < $1.key }) {
            let shown = names.map { URL(fileURLWithPath: $0).lastPathComponent }
            print("- \(kind): \(shown.count) (\(shown.prefix(6).joined(separator: ", "))\(shown.count > 6 ? ", …" : ""))")
        }
        print()
        try cost(context, codec: codec)
    }

    /// What hashing adds to a post: the hash of the pixels a post decoded anyway, against the
    /// post's decode and re-encode of the same 12-megapixel photo.
    static func cost(_ context: BenchContext, codec: ImageCodec) throws {
        var table = Table("photo", "decode + re-encode", "perceptual hash", "hash / re-encode")
        for photo in try context.photos(count: 4, width: 4000, height: 3000) {
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: photo)))
            var reencode = Samples()
            var hash = Samples()
            for _ in 0..<5 {
                var mark = ReencodeBenchmark.threadCPU()
                let pixels = try codec.decode(bytes, source: photo, maxEdge: codec.encoding.maxEdge)
                _ = try codec.encode(pixels, source: photo)
                reencode.add(ReencodeBenchmark.threadCPU() - mark)
                mark = ReencodeBenchmark.threadCPU()
                _ = PerceptualHash(of: pixels)
                hash.add(ReencodeBenchmark.threadCPU() - mark)
            }
            table.add(
                URL(fileURLWithPath: photo).lastPathComponent, Format.ms(reencode.median), Format.ms(hash.median),
                String(format: "%.1f %%", hash.median / reencode.median * 100))
        }
        table.print()
    }

    /// The pictures copies are made of: the test fixtures that are photographs or drawings,
    /// the held sample images, plasma photos, and generated pictures, each as encoded bytes.
    static func samplePictures(_ context: BenchContext, codec: ImageCodec) throws -> [(String, [UInt8])] {
        var pictures: [(String, [UInt8])] = []
        let fixtures = FileManager.default.currentDirectoryPath + "/Tests/Fixtures"
        for name in [
            // One of each picture: photo.heic and .avif are photo.webp's picture, and every
            // orientation fixture is one picture turned.
            "formats/photo.webp", "formats/logo-alpha.webp", "orientation/orientation-1.jpg", "hostile/picture.png",
        ] {
            if let data = FileManager.default.contents(atPath: "\(fixtures)/\(name)") { pictures.append((name, Array(data))) }
        }
        // The held sample images: twenty pictures, two a folder.
        let samples = FileManager.default.currentDirectoryPath + "/SampleImages"
        for folder in ((try? FileManager.default.contentsOfDirectory(atPath: samples)) ?? []).sorted() {
            for file in ((try? FileManager.default.contentsOfDirectory(atPath: "\(samples)/\(folder)")) ?? []).sorted()
            where file != "post.txt" {
                if let data = FileManager.default.contents(atPath: "\(samples)/\(folder)/\(file)") { pictures.append((file, Array(data))) }
            }
        }
        for photo in try context.photos(count: 40, width: 1024, height: 768) {
            pictures.append((photo, try Array(Data(contentsOf: URL(fileURLWithPath: photo)))))
        }
        var quality = codec
        quality.encoding.jpegQuality = 92
        for seed in 0..<160 {
            let pixels = SyntheticPicture.make(seed: UInt64(seed), width: 800, height: 600)
            pictures.append(("generated-\(seed)", try quality.encode(pixels, as: .jpeg, source: "generated").bytes))
        }
        return pictures
    }

    /// JPEG at four qualities, resized to 50–90 %, cropped 2 and 5 % off two sides, PNG, and
    /// WebP (cwebp at quality 75).
    static func copyKinds(_ context: BenchContext) throws -> [Copy] {
        func jpeg(_ quality: Int) -> (PixelBuffer, String) throws -> [UInt8] {
            { pixels, name in
                var codec = ImageCodec()
                codec.encoding.jpegQuality = quality
                return try codec.encode(flattened(pixels), as: .jpeg, source: name).bytes
            }
        }
        func resized(_ percent: Int) -> (PixelBuffer, String) throws -> [UInt8] {
            { pixels, name in
                let scaled = Resampler.resize(
                    pixels, width: max(1, pixels.width * percent / 100), height: max(1, pixels.height * percent / 100))
                return try jpeg(75)(scaled, name)
            }
        }
        func cropped(_ percent: Int) -> (PixelBuffer, String) throws -> [UInt8] {
            { pixels, name in try jpeg(75)(crop(pixels, percent: percent), name) }
        }
        let folder = try context.freshFolder("blocklist-webp")
        let webp: (PixelBuffer, String) throws -> [UInt8] = { pixels, name in
            let png = "\(folder)/copy.png"
            let out = "\(folder)/copy.webp"
            try Data(try ImageCodec().encode(flattened(pixels), as: .png, source: name).bytes).write(to: URL(fileURLWithPath: png))
            try Shell.run("cwebp", "-quiet", "-q", "75", png, "-o", out)
            return try Array(Data(contentsOf: URL(fileURLWithPath: out)))
        }
        return [
            Copy(name: "JPEG q90", make: jpeg(90)), Copy(name: "q70", make: jpeg(70)), Copy(name: "q50", make: jpeg(50)),
            Copy(name: "q30", make: jpeg(30)), Copy(name: "90 %", make: resized(90)), Copy(name: "70 %", make: resized(70)),
            Copy(name: "50 %", make: resized(50)), Copy(name: "crop 2 %", make: cropped(2)), Copy(name: "crop 5 %", make: cropped(5)),
            Copy(name: "PNG", make: { pixels, name in try ImageCodec().encode(pixels, as: .png, source: name).bytes }),
            Copy(name: "WebP", make: webp),
        ]
    }

    /// `pixels` without `percent` of its width on the left and of its height at the top.
    static func crop(_ pixels: PixelBuffer, percent: Int) -> PixelBuffer {
        pixels.cropped(left: pixels.width * percent / 100, top: pixels.height * percent / 100)
    }

    /// A transparent picture over white, as a tool making a JPEG of it shows it.
    static func flattened(_ pixels: PixelBuffer) -> PixelBuffer {
        guard pixels.channels == 4 else { return pixels }
        var rgb = [UInt8](repeating: 0, count: pixels.width * pixels.height * 3)
        for pixel in 0..<(pixels.width * pixels.height) {
            let alpha = Int(pixels.pixels[pixel * 4 + 3])
            for channel in 0..<3 {
                rgb[pixel * 3 + channel] = UInt8((Int(pixels.pixels[pixel * 4 + channel]) * alpha + 255 * (255 - alpha)) / 255)
            }
        }
        return PixelBuffer(width: pixels.width, height: pixels.height, channels: 3, pixels: rgb)
    }

    static func percent(_ part: Int, _ whole: Int) -> String {
        whole == 0 ? "–" : String(format: "%.1f %%", Double(part) / Double(whole) * 100)
    }
}

/// Pictures made from a seed: a two-colour gradient under a dozen coloured ellipses and
/// rectangles, with a little noise, so that distinct seeds give distinct pictures with the
/// large shapes and soft edges photographs have.
enum SyntheticPicture {
    /// A number in 0..<1 from the bench's generator.
    static func unit(_ random: inout Random) -> Double { Double(random.next(1 << 30)) / Double(1 << 30) }

    static func make(seed: UInt64, width: Int, height: Int) -> PixelBuffer {
        var random = Random(seed: seed)
        func colour() -> (Double, Double, Double) { (unit(&random) * 255, unit(&random) * 255, unit(&random) * 255) }
        let top = colour()
        let bottom = colour()
        let angle = unit(&random) * 2 * Double.pi
        struct Shape {
            var x, y, rx, ry: Double
            var colour: (Double, Double, Double)
            var round: Bool
        }
        let shapes = (0..<(6 + random.next(8))).map { _ in
            Shape(
                x: unit(&random), y: unit(&random), rx: 0.05 + unit(&random) * 0.3, ry: 0.05 + unit(&random) * 0.3, colour: colour(),
                round: random.next(2) == 0)
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for py in 0..<height {
            for px in 0..<width {
                let x = Double(px) / Double(width)
                let y = Double(py) / Double(height)
                let t = min(1, max(0, 0.5 + (x - 0.5) * cos(angle) + (y - 0.5) * sin(angle)))
                var c = (top.0 + (bottom.0 - top.0) * t, top.1 + (bottom.1 - top.1) * t, top.2 + (bottom.2 - top.2) * t)
                for shape in shapes {
                    let dx = (x - shape.x) / shape.rx
                    let dy = (y - shape.y) / shape.ry
                    let inside = shape.round ? dx * dx + dy * dy <= 1 : abs(dx) <= 1 && abs(dy) <= 1
                    if inside { c = shape.colour }
                }
                let noise = Double(random.next(9) - 4)
                let at = (py * width + px) * 3
                pixels[at] = UInt8(min(255, max(0, c.0 + noise)))
                pixels[at + 1] = UInt8(min(255, max(0, c.1 + noise)))
                pixels[at + 2] = UInt8(min(255, max(0, c.2 + noise)))
            }
        }
        return PixelBuffer(width: width, height: height, channels: 3, pixels: pixels)
    }
}
