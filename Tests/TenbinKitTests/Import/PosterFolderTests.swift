import Foundation
import Testing

@testable import TenbinKit

@Suite struct PosterFolderTests {
    /// Every entry of the import folder at `root`, described in one line each.
    private func read(_ root: String) throws -> [String] {
        var reader = try FolderReader(root: root)
        var lines: [String] = []
        while let entry = reader.next() {
            switch entry {
            case .poster(let poster):
                let name = poster.source.split(separator: "/").last ?? ""
                lines.append(
                    "\(name): \(poster.images.map(\.label).joined(separator: " | ")) \(poster.contents.debugDescription) \(poster.hashtags)"
                )
            case .failed(let source, let reason): lines.append("\(source.split(separator: "/").last ?? ""): failed: \(reason)")
            case .ignored: lines.append("ignored")
            }
        }
        return lines
    }

    @Test func theSampleFoldersAreTenPostersWithImagesSortedByName() throws {
        let lines = try read(Fixtures.sample(""))
        #expect(lines.count == 10)
        #expect(lines[0] == ##"01-cats-or-dogs: 1-cat.jpg | 2-dog.jpg "猫と犬、どっちが好き？" ["#猫", "#犬", "#ペット"]"##)
        #expect(lines[6] == ##"07-tokyo: sky tree.jpeg | tower.JPG "東京タワーとスカイツリー" ["#東京", "#夜景"]"##)
        #expect(lines[7] == ##"08-kinoko-takenoko: きのこ.jpg | たけのこ.jpg "ｷﾉｺ派？タケノコ派？" ["#きのこ", "#たけのこ", "#お菓子"]"##)
        #expect(lines[9] == ##"10-no-question: left.jpg | right.jpg "" ["#minimal"]"##)
    }

    @Test func imagesAreRecognisedByContentWhateverTheirNames() throws {
        let folder = try ImportFolder()
        try folder.copy(sample: "04-logos/logo-rgba.png", to: "猫 と 犬/い ぬ.JPG")
        try folder.copy(sample: "01-cats-or-dogs/1-cat.jpg", to: "猫 と 犬/ね こ")
        try folder.write("猫 と 犬/notes.md", text: "# not a hashtag line\n")
        try folder.write("猫 と 犬/.DS_Store", [0, 1, 2])
        try folder.copy(sample: "01-cats-or-dogs/1-cat.jpg", to: "猫 と 犬/.hidden.jpg")
        try folder.copy(sample: "01-cats-or-dogs/1-cat.jpg", to: "猫 と 犬/nested/third.jpg")
        #expect(try read(folder.path) == [#"猫 と 犬: い ぬ.JPG | ね こ "" []"#])
    }

    @Test func foldersWithOneOrThreeImagesFail() throws {
        let folder = try ImportFolder()
        try folder.copy(sample: "01-cats-or-dogs/1-cat.jpg", to: "one/a.jpg")
        for name in ["a.jpg", "b.jpg", "c.png"] { try folder.copy(sample: "01-cats-or-dogs/2-dog.jpg", to: "three/\(name)") }
        try folder.write("text-only/post.txt", text: "question\n")
        #expect(
            try read(folder.path) == [
                "one: failed: holds 1 image (a.jpg); a poster needs exactly 2",
                "text-only: failed: holds no image (JPEG, PNG, WebP, HEIC or AVIF); a poster needs exactly 2",
                "three: failed: holds 3 images (a.jpg, b.jpg, c.png); a poster needs exactly 2",
            ])
    }

    @Test func filesNamedLikeImagesThatAreNotJPEGOrPNGFailTheFolder() throws {
        let folder = try ImportFolder()
        try folder.copy(sample: "01-cats-or-dogs/1-cat.jpg", to: "gif/a.jpg")
        try folder.write("gif/b.gif", Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0])
        try folder.copy(sample: "01-cats-or-dogs/1-cat.jpg", to: "text/a.jpg")
        try folder.write("text/b.jpg", text: "<html>not an image</html>")
        try folder.copy(sample: "01-cats-or-dogs/1-cat.jpg", to: "empty/a.jpg")
        try folder.write("empty/b.png", [])
        #expect(
            try read(folder.path) == [
                "empty: failed: b.png is empty, not a JPEG, PNG, WebP, HEIC or AVIF image",
                "gif: failed: b.gif is a GIF image, not a JPEG, PNG, WebP, HEIC or AVIF image",
                "text: failed: b.jpg is text, not a JPEG, PNG, WebP, HEIC or AVIF image",
            ])
    }

    @Test func namesThatAreNotUTF8FailTheirPosterNotSilently() throws {
        let folder = try ImportFolder()
        try folder.copy(sample: "01-cats-or-dogs/1-cat.jpg", to: "good/a.jpg")
        try folder.copy(sample: "01-cats-or-dogs/2-dog.jpg", to: "good/b.jpg")
        try folder.copy(sample: "01-cats-or-dogs/1-cat.jpg", to: "latin/a.jpg")
        // "caf\xE9" (Latin-1) as a folder, and a Shift_JIS file name in "latin".
        let latin = "\(folder.path)/latin/"
        let rawFolder = Array(folder.path.utf8) + Array("/caf".utf8) + [0xE9]
        let rawFile = Array(latin.utf8) + [0x83, 0x6E, 0x83, 0x67] + Array(".jpg".utf8)
        #expect(mkdir(rawFolder.map { CChar(bitPattern: $0) } + [0], 0o755) == 0)
        let image = try Data(contentsOf: URL(fileURLWithPath: "\(folder.path)/good/b.jpg"))
        for raw in [rawFolder + Array("/1.jpg".utf8), rawFolder + Array("/2.jpg".utf8), rawFile] {
            let fd = open(raw.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_EXCL, 0o644)
            #expect(fd >= 0)
            _ = image.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        let reason = "has a name that is not UTF-8 text (another encoding?); rename it to UTF-8, for example with convmv"
        #expect(
            try read(folder.path) == [
                "caf\u{FFFD}: failed: \(reason)",
                #"good: a.jpg | b.jpg "" []"#,
                "latin: failed: \u{FFFD}n\u{FFFD}g.jpg \(reason)",
            ])
    }

    @Test func unreadableFilesFailTheFolder() throws {
        let folder = try ImportFolder()
        try folder.copy(sample: "01-cats-or-dogs/1-cat.jpg", to: "dangling/a.jpg")
        try folder.link("dangling/b.jpg", to: "\(folder.path)/nowhere.jpg")
        try folder.posterFolder("bad-text")
        try folder.write("bad-text/post.txt", [0x82, 0xA0])
        #expect(
            try read(folder.path) == [
                "bad-text: failed: post.txt is not UTF-8 text; save it as UTF-8",
                "dangling: failed: b.jpg cannot be read: No such file or directory",
            ])
        if getuid() != 0 {  // root reads any file whatever its mode
            try folder.posterFolder("locked")
            chmod("\(folder.path)/locked/2.jpg", 0)
            #expect(try read(folder.path).last == "locked: failed: 2.jpg cannot be read: Permission denied")
        }
    }

    @Test func hiddenFoldersAndFoldersWithNothingToImportArePassedOver() throws {
        let folder = try ImportFolder()
        try folder.posterFolder(".git")
        try folder.write("docs/readme.md", text: "hello")
        try folder.posterFolder("real", text: "q")
        try folder.write("stray.txt", text: "not a folder")
        let reader = try FolderReader(root: folder.path + "///")
        #expect(reader.total == 2)
        #expect(reader.root == folder.path)
        #expect(try read(folder.path) == ["ignored", #"real: 1.jpg | 2.jpg "q" []"#])
    }

    @Test func aFolderThatIsItselfAPosterFolderIsRefusedWithAHint() throws {
        let folder = try ImportFolder()
        try folder.posterFolder("pair")
        #expect(throws: ImportError.self) { try FolderReader(root: "\(folder.path)/pair") }
    }
}
