import Foundation
import TenbinKit
import TestProcesses
import Testing

@testable import tenbin

/// Pictures drawn by libchafa: each `--image-mode`, the choice `auto` makes, and the bytes of
/// kitty, sixel and iTerm2 images compared with what the `chafa` program prints for the same
/// pixels.
@Suite(.ownThreads) struct TerminalPictureTests {
    static let chafaProgram = "/usr/bin/chafa"
    static var chafaReady: Bool {
        TerminalPicture.chafaUnavailableReason == nil && FileManager.default.isExecutableFile(atPath: chafaProgram)
    }

    /// A 48×32 gradient with a half-transparent stripe: 6×2 cells, as `chafa -s 6x2` fits it
    /// (its cells are twice as tall as wide).
    static func gradient() -> PixelBuffer {
        var pixels: [UInt8] = []
        for y in 0..<32 {
            for x in 0..<48 {
                pixels += [UInt8(x * 5), UInt8(255 - y * 7), UInt8((x * y) % 256), y == 7 ? 100 : 255]
            }
        }
        return PixelBuffer(width: 48, height: 32, channels: 4, pixels: pixels)
    }

    /// What `chafa -f FORMAT -s 6x2` prints for `image`, written as a PNG by ImageMagick.
    static func chafaOutput(_ image: PixelBuffer, format: String, in folder: ScratchFolder) throws -> Data {
        let raw = "\(folder.path)/pixels.rgba"
        let png = "\(folder.path)/pixels.png"
        try Data(image.pixels).write(to: URL(fileURLWithPath: raw))
        _ = try Shell.capture(["convert", "-size", "\(image.width)x\(image.height)", "-depth", "8", "rgba:\(raw)", "png32:\(png)"])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chafaProgram)
        process.arguments = ["-f", format, "-s", "6x2", png]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.start()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitForExit()
        return data
    }

    @Test(.enabled(if: chafaReady, "needs libchafa, the chafa program and ImageMagick"))
    func kittySixelAndITermImagesAreTheBytesChafaPrints() throws {
        let folder = try ScratchFolder()
        let image = Self.gradient()
        for (mode, format) in [(ImageMode.kitty, "kitty"), (.sixel, "sixels"), (.iterm, "iterm")] {
            let ours = try #require(TerminalPicture.chafa(image, mode: mode, columns: 6, rows: 2, cell: (8, 8)))
            let theirs = try Self.chafaOutput(image, format: format, in: folder)
            #expect(!theirs.isEmpty)
            // The program ends some formats with a line feed of its own.
            #expect(Data(ours.utf8) == theirs || Data((ours + "\n").utf8) == theirs, "\(format)")
        }
    }

    @Test(.enabled(if: TerminalPicture.chafaUnavailableReason == nil, "needs libchafa"))
    func symbolsAreOneLinePerRowOfBlockSymbols() throws {
        let drawn = try #require(TerminalPicture.chafa(Self.gradient(), mode: .symbols, columns: 6, rows: 2, cell: (8, 8)))
        let rows = drawn.split(separator: "\n").map(String.init)
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { TerminalImage.visibleWidth($0) == 6 })
        #expect(drawn.contains("\u{1B}[38;2;"), "24-bit colour")
    }

    @Test func autoPicksRealImagesOnlyWhereTheTerminalSaysSo() {
        let detect = { (environment: [String: String]) in TerminalPicture.detect(environment: environment, terminal: true) }
        #expect(detect(["TERM": "xterm-kitty"]) == .kitty)
        #expect(detect(["KITTY_WINDOW_ID": "1", "TERM": "xterm-256color"]) == .kitty)
        #expect(detect(["TERM_PROGRAM": "iTerm.app"]) == .iterm)
        #expect(detect(["TERM_PROGRAM": "WezTerm"]) == .iterm)
        #expect(detect(["TERM": "foot"]) == .sixel)
        #expect(detect(["TERM": "xterm-256color", "KONSOLE_VERSION": "230805"]) == .sixel)
        #expect(detect(["TERM": "xterm-256color"]) == .symbols)
        #expect(detect(["TERM": "xterm-kitty", "TMUX": "/tmp/tmux-0/default,1,0"]) == .symbols, "tmux passes no images through")
        #expect(TerminalPicture.detect(environment: ["TERM": "xterm-kitty"], terminal: false) == .symbols)
        #expect(TerminalPicture.resolve(.auto, environment: ["TERM": "xterm-kitty"], terminal: true, chafaAvailable: false) == .halfblock)
        #expect(TerminalPicture.resolve(.kitty, environment: [:], terminal: false, chafaAvailable: false) == .halfblock)
        #expect(
            TerminalPicture.resolve(.halfblock, environment: ["TERM": "xterm-kitty"], terminal: true, chafaAvailable: true) == .halfblock)
        #expect(TerminalPicture.resolve(.sixel, environment: [:], terminal: false, chafaAvailable: true) == .sixel)
    }

    @Test(.enabled(if: TerminalPicture.chafaUnavailableReason == nil, "needs libchafa"))
    func eachModeDrawsThePosterWithTheBarBelow() throws {
        let store = try ImagesOnScreenTests.store(posters: 1)
        let markers: [(String, String, String)] = [
            ("kitty", "\u{1B}_Ga=T,f=32,", "\u{1B}_Gm=0\u{1B}\\"), ("sixel", "\u{1B}P", "\u{1B}\\"),
            ("iterm", "\u{1B}]1337;File=inline=1;", "\u{07}"),
        ]
        for (mode, start, end) in markers {
            let run = try Tenbin.run(["show", "1", "--image-mode", mode], store: store.path, environment: ["COLUMNS": "60"])
            #expect(run.status == 0, "\(mode): \(run.stderr)")
            let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let picture = try #require(lines.firstIndex { $0.hasPrefix(start) }, "\(mode)")
            #expect(lines[picture].hasSuffix(end), "\(mode): one line holds the whole image")
            #expect(lines[picture + 1].hasPrefix("1 ▕"), "\(mode): the bar follows the image")
        }
        // A list draws with any mode given, without --images.
        let list = try Tenbin.run(["list", "--image-mode", "symbols"], store: store.path, environment: ["COLUMNS": "50"])
        #expect(list.status == 0)
        #expect(list.stdout.contains("\u{1B}[38;2;"))
        #expect(ImagesOnScreenTests.visibleWidths(list.stdout).allSatisfy { $0 <= 50 })
    }

    @Test func badImageModesAreUsageErrors() throws {
        let store = try ScratchFolder()
        for (arguments, message) in [
            (["show", "1", "--image-mode", "ascii"], "Error: '--image-mode' takes one of auto, kitty, sixel, iterm, symbols, halfblock"),
            (["show", "1", "--image-mode", "kitty", "--no-images"], "Error: '--image-mode' cannot be used with '--no-images'"),
            (["list", "--image-mode", "sixel", "--json"], "Error: '--image-mode' cannot be used with '--json'"),
        ] {
            let run = try Tenbin.run(arguments, store: store.path)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr.hasPrefix(message), "\(run.stderr)")
        }
    }

    @Test(.enabled(if: TmuxSession.isAvailable && TerminalPicture.chafaUnavailableReason == nil, "needs tmux and libchafa"))
    func inTmuxAutoDrawsASymbolMosaicThatFitsTheScreen() throws {
        let store = try ImagesOnScreenTests.store(posters: 1)
        let tmux = try TmuxSession(
            "COLORTERM=truecolor NO_COLOR= \(Tenbin.binary) --store \(store.path) show 1; sleep 60", columns: 70, rows: 50)
        let screen = try tmux.waitForScreen { $0.contains("image 2: jpeg") }
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.contains { $0.hasPrefix("1 ▕") })
        // Symbols beyond the half blocks' ▀ and ▄: a mosaic, not half blocks.
        #expect(screen.unicodeScalars.contains { "▁▂▃▅▆▇▎▍▌▋▊▉▖▗▘▝▚▞".unicodeScalars.contains($0) }, "\(screen)")
        #expect(lines.allSatisfy { TextWidth.of($0) <= 70 })
    }
}
