import CChafa
import TenbinKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How `--image-mode` asks pictures to be drawn.
enum ImageMode: String, CaseIterable, Sendable {
    /// The best the terminal and libchafa allow (see ``TerminalPicture/resolve(_:environment:terminal:)``).
    case auto
    /// Real images: the kitty graphics protocol (kitty, WezTerm, Ghostty, Konsole).
    case kitty
    /// Real images as sixels (xterm -ti vt340, foot, mlterm, Konsole, WezTerm).
    case sixel
    /// Real images: iTerm2's inline images (iTerm2, WezTerm).
    case iterm
    /// libchafa's mosaic of block and border symbols in 24-bit colour: any truecolor terminal.
    case symbols
    /// tenbin's own `▀` half blocks, two pixels a cell (no library needed).
    case halfblock
}

/// Pictures in the terminal: half blocks drawn by tenbin itself (``TerminalImage``), or
/// libchafa's symbol mosaics and kitty, sixel and iTerm2 images. This is the only file that
/// reaches libchafa (through CChafa, which loads it on first use).
enum TerminalPicture {
    /// Pixels of tenbin's layout per character column when libchafa draws: libchafa samples
    /// 8×8 pixels for each symbol.
    static let pixelsPerColumn = 8

    /// Nil when libchafa can draw; else why not.
    static let chafaUnavailableReason: String? = {
        var error = [CChar](repeating: 0, count: 200)
        return tb_chafa_available(&error) == 1
            ? nil : String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// The mode to draw in: `auto` resolved from the environment, and every libchafa mode
    /// falling back to half blocks when libchafa cannot be loaded.
    static func resolve(
        _ mode: ImageMode, environment: [String: String], terminal: Bool, chafaAvailable: Bool = chafaUnavailableReason == nil
    ) -> ImageMode {
        if mode == .halfblock || !chafaAvailable { return .halfblock }
        return mode == .auto ? detect(environment: environment, terminal: terminal) : mode
    }

    /// What `auto` means here. Real images only on a terminal that says which protocol it
    /// speaks (and not inside tmux or screen, which do not pass them through); a symbol mosaic
    /// everywhere else, on a terminal or off it.
    static func detect(environment: [String: String], terminal: Bool) -> ImageMode {
        let term = environment["TERM"] ?? ""
        let program = environment["TERM_PROGRAM"] ?? ""
        guard terminal, environment["TMUX"] == nil, !term.hasPrefix("screen"), !term.hasPrefix("tmux") else { return .symbols }
        if environment["KITTY_WINDOW_ID"] != nil || term == "xterm-kitty" || program == "ghostty" { return .kitty }
        if program == "iTerm.app" || program == "WezTerm" || environment["LC_TERMINAL"] == "iTerm2" { return .iterm }
        if term.hasPrefix("foot") || term.hasPrefix("mlterm") || environment["KONSOLE_VERSION"] != nil { return .sixel }
        return .symbols
    }

    /// The size of a character cell in pixels: from the terminal when it says (TIOCGWINSZ),
    /// else 10×20, the shape of most terminal fonts.
    static func cellSize(terminal: Bool) -> (width: Int, height: Int) {
        var size = winsize()
        if terminal, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0, size.ws_xpixel > 0,
            size.ws_ypixel > 0
        {
            let width = Int(size.ws_xpixel) / Int(size.ws_col)
            let height = Int(size.ws_ypixel) / Int(size.ws_row)
            if width > 0 && height > 0 { return (width, height) }
        }
        return (10, 20)
    }

    /// `image` drawn by libchafa over `columns`×`rows` cells of `cell` pixels, exactly as
    /// libchafa prints it; nil when libchafa is missing or fails. `mode` is not `auto` or
    /// `halfblock`.
    static func chafa(_ image: PixelBuffer, mode: ImageMode, columns: Int, rows: Int, cell: (width: Int, height: Int)) -> String? {
        let pixelMode: tb_chafa_mode
        switch mode {
        case .kitty: pixelMode = TB_CHAFA_KITTY
        case .sixel: pixelMode = TB_CHAFA_SIXELS
        case .iterm: pixelMode = TB_CHAFA_ITERM2
        case .symbols, .auto, .halfblock: pixelMode = TB_CHAFA_SYMBOLS
        }
        let rgba = rgbaPixels(image)
        var length = 0
        let printed = rgba.withUnsafeBufferPointer { pixels in
            tb_chafa_render(
                pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width * 4), pixelMode, Int32(columns),
                Int32(rows), Int32(cell.width), Int32(cell.height), &length)
        }
        guard let printed else { return nil }
        defer { free(printed) }
        return String(decoding: UnsafeRawBufferPointer(start: printed, count: length), as: UTF8.self)
    }

    /// The pixels as RGBA, whatever their channels.
    static func rgbaPixels(_ image: PixelBuffer) -> [UInt8] {
        if image.channels == 4 { return image.pixels }
        var out = [UInt8](repeating: 255, count: image.width * image.height * 4)
        let source = image.pixels
        for index in 0..<image.width * image.height {
            let from = index * image.channels
            switch image.channels {
            case 1, 2:
                out[index * 4] = source[from]
                out[index * 4 + 1] = source[from]
                out[index * 4 + 2] = source[from]
                if image.channels == 2 { out[index * 4 + 3] = source[from + 1] }
            default:
                out[index * 4] = source[from]
                out[index * 4 + 1] = source[from + 1]
                out[index * 4 + 2] = source[from + 2]
            }
        }
        return out
    }

    /// Two pictures side by side on one transparent RGBA canvas, each centred in its own half
    /// `half` pixels wide, `gap` pixels apart, and as tall as `rowPixels` rows allow: the
    /// whole pair becomes one picture, so every mode lays it out the same way.
    static func sideBySide(_ images: [PixelBuffer?], half: Int, gap: Int, rowPixels: Int) -> (canvas: PixelBuffer, rows: Int) {
        let tallest = images.compactMap { $0?.height }.max() ?? 1
        let rows = max(1, (tallest + rowPixels - 1) / rowPixels)
        let width = half * 2 + gap
        let height = rows * rowPixels
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for (index, image) in images.enumerated() {
            guard let image else { continue }
            let rgba = rgbaPixels(image)
            let left = index * (half + gap) + max(0, (half - image.width) / 2)
            let top = max(0, (height - image.height) / 2)
            for y in 0..<min(image.height, height) {
                let from = y * image.width * 4
                let to = ((top + y) * width + left) * 4
                let count = min(image.width, width - left) * 4
                pixels[to..<to + count] = rgba[from..<from + count]
            }
        }
        return (PixelBuffer(width: width, height: height, channels: 4, pixels: pixels), rows)
    }
}
