import Foundation
import Testing

@testable import TenbinKit
@testable import tenbin

@Suite(.ownThreads, .timeLimit(.minutes(10))) struct TerminalImageTests {
    static let red: [UInt8] = [255, 0, 0]
    static let green: [UInt8] = [0, 255, 0]
    static let blue: [UInt8] = [0, 0, 255]
    static let white: [UInt8] = [255, 255, 255]

    @Test func aTwoByTwoImageIsOneRowOfTwoHalfBlocks() {
        // Upper row red, green; lower row blue, white.
        let image = PixelBuffer(width: 2, height: 2, channels: 3, pixels: Self.red + Self.green + Self.blue + Self.white)
        #expect(
            TerminalImage.rows(image) == [
                "\u{1B}[38;2;255;0;0m\u{1B}[48;2;0;0;255m▀\u{1B}[38;2;0;255;0m\u{1B}[48;2;255;255;255m▀\u{1B}[0m"
            ])
    }

    @Test func repeatedColoursAreNotWrittenAgain() {
        let image = PixelBuffer(
            width: 3, height: 2, channels: 3, pixels: Self.red + Self.red + Self.green + Self.blue + Self.blue + Self.blue)
        #expect(
            TerminalImage.rows(image) == [
                "\u{1B}[38;2;255;0;0m\u{1B}[48;2;0;0;255m▀▀\u{1B}[38;2;0;255;0m▀\u{1B}[0m"
            ])
    }

    @Test func anOddLastRowShowsTheTerminalBackgroundBelow() {
        let image = PixelBuffer(width: 1, height: 3, channels: 1, pixels: [10, 20, 30])
        #expect(
            TerminalImage.rows(image) == [
                "\u{1B}[38;2;10;10;10m\u{1B}[48;2;20;20;20m▀\u{1B}[0m",
                "\u{1B}[38;2;30;30;30m▀\u{1B}[0m",
            ])
    }

    @Test func transparentPixelsShowTheTerminalBackground() {
        let clear: [UInt8] = [9, 9, 9, 0]
        let opaque: [UInt8] = [1, 2, 3, 255]
        // Columns: opaque over clear, clear over opaque, clear over clear.
        let image = PixelBuffer(width: 3, height: 2, channels: 4, pixels: opaque + clear + clear + clear + opaque + clear)
        #expect(
            TerminalImage.rows(image) == [
                "\u{1B}[38;2;1;2;3m▀▄ \u{1B}[0m"
            ])
    }

    @Test func visibleWidthIgnoresEscapeCodesAndCountsWideCharacters() {
        #expect(TerminalImage.visibleWidth("\u{1B}[38;2;1;2;3m▀\u{1B}[0m猫a") == 4)
    }

    /// Sample posters with their thumbnails, decoded as the pipeline would for `drawing`.
    static func samplePosters(for drawing: PosterDrawing) throws -> [(Poster, [Result<PixelBuffer, any Error>])] {
        let codec = ImageCodec()
        return try SampleFiles.sampleFolders.enumerated().map { index, sample in
            let images = try sample.images.map { path in
                Result<PixelBuffer, any Error>.success(try codec.decode(SampleFiles.bytes(path), size: drawing.imageSize, source: path))
            }
            let stored = StoredImage(digest: Digest(of: [UInt8(index)]), format: .jpeg, width: 900, height: 600, bytes: 41836)
            let poster = Poster(
                id: Int64(index + 1), contents: "サンプル \(sample.folder) の質問、どっちが好き？", hashtags: ["猫", "写真", sample.folder],
                good1: index * 3, good2: 7, createdAt: Timestamp(secondsSince1970: 1_764_450_000), images: [stored, stored])
            return (poster, images)
        }
    }

    @Test(arguments: [24, 41, 80, 133])
    func aDrawnBoardFitsTheGivenWidth(width: Int) throws {
        let drawing = PosterDrawing(
            width: width, maxImageColumns: PosterDrawing.listColumns, formatter: PosterFormatter(width: width, color: true))
        for (poster, images) in try Self.samplePosters(for: drawing) {
            let lines = drawing.card(poster, images: images)
            #expect(lines.count > 4)
            for line in lines { #expect(TerminalImage.visibleWidth(line) <= width, "\(poster.id): \(line)") }
            let detail = PosterDrawing(width: width, maxImageColumns: PosterDrawing.detailColumns, formatter: PosterFormatter(width: width))
            for line in detail.pictures(poster, images: images) + detail.votes(poster) {
                #expect(TerminalImage.visibleWidth(line) <= width)
            }
        }
    }

    @Test func bothImagesShareEveryRowAndTheBarSpansThem() throws {
        let drawing = PosterDrawing(width: 80, maxImageColumns: 32, formatter: PosterFormatter(width: 80))
        let (poster, images) = try Self.samplePosters(for: drawing)[6]  // 07-tokyo: two tall photos
        let pictures = drawing.pictures(poster, images: images)
        #expect(pictures.count == 16)  // 800×1000 fitted into 32×32 pixels is 26×32: 16 rows
        for row in pictures {
            #expect(TerminalImage.visibleWidth(row) == 66)
            #expect(row.components(separatedBy: "\u{1B}[0m").count == 3)  // each image ends its row with a reset
        }
        #expect(drawing.votes(poster)[0].hasPrefix("1 ▕") && TerminalImage.visibleWidth(drawing.votes(poster)[0]) == 66)
    }

    @Test func anImageThatCannotBeLoadedIsNamedInItsPlace() throws {
        let drawing = PosterDrawing(width: 80, maxImageColumns: 32, formatter: PosterFormatter(width: 80))
        let (poster, images) = try Self.samplePosters(for: drawing)[0]
        let lines = drawing.pictures(poster, images: [images[0], .failure(CancellationError())])
        #expect(lines.contains { $0.contains("(image 2 unavailable)") })
        for line in lines { #expect(TerminalImage.visibleWidth(line) == 66) }
    }
}

/// The sample images shipped with the repository.
enum SampleFiles {
    static var sampleFolders: [(folder: String, images: [String])] {
        let base = "\(Tenbin.root)/SampleImages"
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
