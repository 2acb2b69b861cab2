import Foundation
import TenbinKit
import TenbinSQLite

/// A fresh store folder for one test, removed when the value is released.
final class TemporaryStore {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "tenbin-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A board on this store with a fixed clock.
    func board(
        limits: ImageLimits = ImageLimits(), encoding: EncodingOptions = EncodingOptions(), create: Bool = true,
        live: LiveFeeds.Options = LiveFeeds.Options()
    ) throws -> Board {
        try Board(folder: path, configuration: configuration(limits: limits, encoding: encoding, live: live), create: create)
    }

    /// The configuration of this store's boards, with a fixed clock.
    func configuration(
        limits: ImageLimits = ImageLimits(), encoding: EncodingOptions = EncodingOptions(), live: LiveFeeds.Options = LiveFeeds.Options()
    ) -> Board.Configuration {
        Board.Configuration(
            limits: limits, encoding: encoding, now: { Timestamp(secondsSince1970: 1_764_450_000) }, live: live)
    }
}

/// Files shipped with the repository.
enum Fixtures {
    /// The package root, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    static func sample(_ relative: String) -> String { "\(root)/SampleImages/\(relative)" }

    static func hostile(_ name: String) -> String { "\(root)/Tests/Fixtures/hostile/\(name)" }

    /// Every SampleImages folder with its two images, sorted by name.
    static var sampleFolders: [(folder: String, images: [String])] {
        let base = "\(root)/SampleImages"
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []
        return folders.sorted().map { name in
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: "\(base)/\(name)")) ?? [])
                .filter { $0 != "post.txt" }.sorted().map { "\(base)/\(name)/\($0)" }
            return (name, files)
        }
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
