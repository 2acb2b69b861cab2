import Foundation
import Testing

/// The built binary with the formats and orientations a phone or a browser produces.
@Suite(.ownThreads) struct ImageFormatTests {
    func images(_ run: TenbinRun) throws -> [[String: Any]] {
        let poster = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        return try #require(poster["images"] as? [[String: Any]])
    }

    @Test func aPNGTurnedByItsExifChunkIsStoredUprightLikeTheSameJPEG() throws {
        let store = try ScratchFolder()
        let base = Tenbin.root + "/Tests/Fixtures/orientation"
        let run = try Tenbin.run(["post", "\(base)/orientation-6.png", "\(base)/orientation-8.jpg", "--json"], store: store.path)
        #expect(run.status == 0, "\(run.stderr)")
        for image in try images(run) {
            // Stored 16×32, upright 32×16.
            #expect(image["width"] as? Int == 32)
            #expect(image["height"] as? Int == 16)
        }
    }

    @Test func heicAndWebPFromAPhoneAreStoredAsJPEGAndAVIFWithAlphaAsPNG() throws {
        let store = try ScratchFolder()
        let base = Tenbin.root + "/Tests/Fixtures/formats"
        let photos = try Tenbin.run(["post", "\(base)/photo.heic", "\(base)/photo.webp", "--json"], store: store.path)
        #expect(photos.status == 0, "\(photos.stderr)")
        #expect(try images(photos).map { $0["format"] as? String } == ["jpeg", "jpeg"])
        let logos = try Tenbin.run(["post", "\(base)/logo-alpha.avif", "\(base)/photo.avif", "--json"], store: store.path)
        #expect(logos.status == 0, "\(logos.stderr)")
        #expect(try images(logos).map { $0["format"] as? String } == ["png", "jpeg"])
        #expect(try Tenbin.run(["check"], store: store.path).status == 0)
    }

    @Test func anAnimatedWebPIsRefusedWithOneLine() throws {
        let store = try ScratchFolder()
        let path = Tenbin.root + "/Tests/Fixtures/formats/animated.webp"
        let run = try Tenbin.run(["post", path, Tenbin.root + "/Tests/Fixtures/formats/photo.webp"], store: store.path)
        #expect(run.status == 1)
        #expect(run.stderr == "Error: \(path): is an animated WebP; tenbin stores still images\n")
    }
}
