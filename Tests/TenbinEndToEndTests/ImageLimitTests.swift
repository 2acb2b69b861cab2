import Foundation
import Testing

/// Each image limit refuses an upload on its own, from the command line.
@Suite(.ownThreads, .timeLimit(.minutes(10))) struct ImageLimitTests {
    static let photo = Tenbin.root + "/SampleImages/03-phone-portrait/a-rotated.jpg"  // 2400×1800, 4.32 MP
    static let other = Tenbin.root + "/SampleImages/01-cats-or-dogs/1-cat.jpg"

    @Test func aPhotoWithinTheSideLimitButOverTheMegapixelLimitIsRefused() throws {
        let store = try ScratchFolder()
        let run = try Tenbin.run(["post", Self.photo, Self.other, "--max-megapixels", "4"], store: store.path)
        #expect(run.status == 1)
        #expect(run.stderr == "Error: \(Self.photo): 2400×1800 pixels (4.3 MP) is over the limit of 4.0 megapixels\n")
        #expect(store.files().filter { $0.hasPrefix("blobs/") }.isEmpty, "nothing was stored")
        #expect(try Tenbin.run(["post", Self.photo, Self.other, "--max-megapixels", "5"], store: store.path).status == 0)
    }

    @Test func aPhotoOverTheSideLimitIsRefusedForItsSide() throws {
        let store = try ScratchFolder()
        let run = try Tenbin.run(["post", Self.photo, Self.other, "--max-side", "2000"], store: store.path)
        #expect(run.status == 1)
        #expect(run.stderr == "Error: \(Self.photo): 2400×1800 pixels is over the limit of 2000 pixels a side\n")
    }
}
