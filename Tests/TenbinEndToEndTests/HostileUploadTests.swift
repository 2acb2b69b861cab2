import Foundation
import Testing

@Suite(.ownThreads, .timeLimit(.minutes(10))) struct HostileUploadTests {
    static let good = Tenbin.root + "/SampleImages/09-sea-or-mountain/sea.jpg"

    @Test(arguments: [
        ("empty.jpg", "is empty, not a JPEG, PNG, WebP, HEIC or AVIF image"),
        ("text-named.jpg", "is text, not a JPEG, PNG, WebP, HEIC or AVIF image"),
        ("animation.jpg", "is a GIF image, not a JPEG, PNG, WebP, HEIC or AVIF image"),
        ("../../../Fuzz/Seeds/image/truncated.webp", "WebP decode failed: the file is truncated"),
        ("../../../Fuzz/Seeds/image/header-only.webp", "WebP decode failed: the file is truncated"),
        ("../../../Fuzz/Seeds/image/truncated.heic", "HEIC header failed: Invalid input: Unexpected end of file"),
        ("../../../Fuzz/Seeds/image/truncated.avif", "AVIF header failed: Invalid input: Unexpected end of file"),
        ("../../../Fuzz/Seeds/image/ftyp-only.heic", "HEIC header failed: Invalid input: No 'meta' box"),
        ("../../../Fuzz/Seeds/image/huge-16383x16383.webp", "16383×16383 pixels (268.4 MP) is over the limit of 50.0 megapixels"),
        ("../../../Fuzz/Seeds/image/huge-30000x30000.heic", "30000×30000 pixels is over the limit of 20000 pixels a side"),
        ("../../../Fuzz/Seeds/image/huge-30000x30000.avif", "30000×30000 pixels is over the limit of 20000 pixels a side"),
        ("truncated.jpg", "the file is truncated"),
        ("truncated.png", "the file is truncated"),
        ("bad-crc.png", "CRC error"),
        ("huge-30000x30000.png", "30000×30000 pixels is over the limit of 20000 pixels a side"),
        ("huge-65000x65000.jpg", "65000×65000 pixels is over the limit of 20000 pixels a side"),
        ("zero-size.png", "Invalid IHDR data"),
    ])
    func aHostileFileIsRefusedWithOneLineAndLeavesNothing(name: String, reason: String) throws {
        let store = try ScratchFolder()
        let path = Tenbin.root + "/Tests/Fixtures/hostile/" + name
        for order in [[Self.good, path], [path, Self.good]] {
            let run = try Tenbin.run(["post"] + order, store: store.path)
            #expect(run.status == 1)
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.hasPrefix("Error: \(path): "))
            #expect(run.stderr.contains(reason), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
        }
        #expect(!store.files().contains { $0.hasPrefix("blobs/") }, "no blob file is written")
        #expect(try Tenbin.run(["list", "--json"], store: store.path).stdout == "[]\n")
        #expect(try Tenbin.run(["check"], store: store.path).status == 0)
    }

    @Test func aWebPNamedPNGIsReadByItsContent() throws {
        let store = try ScratchFolder()
        let run = try Tenbin.run(["post", Self.good, Tenbin.root + "/Tests/Fixtures/hostile/picture.png", "--json"], store: store.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""format": "png", "width": 1, "height": 1"#), "\(run.stdout)")
    }

    @Test func aMissingFileAndAFolderAreNamed() throws {
        let store = try ScratchFolder()
        let missing = try Tenbin.run(["post", Self.good, "/nonexistent.jpg"], store: store.path)
        #expect(missing.stderr == "Error: /nonexistent.jpg: cannot be read: No such file or directory\n")
        let folder = try Tenbin.run(["post", Self.good, Tenbin.root], store: store.path)
        #expect(folder.status == 1)
        #expect(folder.stderr == "Error: \(Tenbin.root): cannot be read: Is a directory\n")
    }

    /// Sanitizers reserve terabytes of shadow address space, which an address-space limit
    /// forbids, so this one runs only in the normal build.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["TENBIN_SANITIZER"] == nil))
    func aHugeImageIsRefusedWithoutAllocatingItsPixels() throws {
        // 30000×30000 would need 900 MB decoded, 65000×65000 over 12 GB. Under a 300 MB
        // address-space limit (where a normal post still works) both are refused from the header.
        let store = try ScratchFolder()
        let normal = try Tenbin.runLimited(kilobytes: 300_000, ["--store", store.path, "post", Self.good, Self.good])
        #expect(normal.status == 0, "\(normal.stderr)")
        let cases = [
            ("huge-30000x30000.png", "30000×30000"), ("huge-65000x65000.jpg", "65000×65000"),
            ("../../../Fuzz/Seeds/image/huge-30000x30000.heic", "30000×30000"),
            ("../../../Fuzz/Seeds/image/huge-30000x30000.avif", "30000×30000"),
        ]
        for (hostile, size) in cases {
            let path = Tenbin.root + "/Tests/Fixtures/hostile/" + hostile
            let run = try Tenbin.runLimited(kilobytes: 300_000, ["--store", store.path, "post", Self.good, path])
            #expect(run.status == 1)
            #expect(run.stderr == "Error: \(path): \(size) pixels is over the limit of 20000 pixels a side\n")
        }
    }
}
