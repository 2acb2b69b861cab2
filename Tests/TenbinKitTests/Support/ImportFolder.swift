import Foundation

/// A scratch import folder built file by file, removed when the value is released.
final class ImportFolder {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "tenbin-import-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `bytes` at `relative`, making its folders.
    @discardableResult
    func write(_ relative: String, _ bytes: [UInt8]) throws -> String {
        let file = "\(path)/\(relative)"
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }

    @discardableResult
    func write(_ relative: String, text: String) throws -> String {
        try write(relative, Array(text.utf8))
    }

    /// Copies a SampleImages file to `relative`.
    @discardableResult
    func copy(sample: String, to relative: String) throws -> String {
        try write(relative, Fixtures.bytes(Fixtures.sample(sample)))
    }

    /// A poster folder `name` with two sample images and a post.txt.
    func posterFolder(_ name: String, text: String? = nil) throws {
        try copy(sample: "01-cats-or-dogs/1-cat.jpg", to: "\(name)/1.jpg")
        try copy(sample: "01-cats-or-dogs/2-dog.jpg", to: "\(name)/2.jpg")
        if let text { try write("\(name)/post.txt", text: text) }
    }

    /// A symbolic link at `relative` pointing at `target`.
    func link(_ relative: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(atPath: "\(path)/\(relative)", withDestinationPath: target)
    }
}
