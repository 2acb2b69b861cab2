import TenbinKit

/// Pixels drawn in a terminal with 24-bit colour half blocks: each character cell shows two
/// pixels, the upper one as the foreground of `▀` and the lower one as its background, so a
/// picture `width` pixels wide takes `width` columns and half its height in rows.
///
/// A pixel less than half opaque shows the terminal's own background. Colour codes are only
/// written when they change from the cell before, and every row ends by resetting them.
enum TerminalImage {
    /// A pixel's colour, or nil for "the terminal's background".
    private struct Colour: Equatable {
        let red: UInt8
        let green: UInt8
        let blue: UInt8
    }

    /// The character rows drawing `image`, each exactly `image.width` columns wide.
    static func rows(_ image: PixelBuffer) -> [String] {
        var rows: [String] = []
        rows.reserveCapacity((image.height + 1) / 2)
        var y = 0
        while y < image.height {
            rows.append(row(image, upper: y, lower: y + 1 < image.height ? y + 1 : nil))
            y += 2
        }
        return rows
    }

    private static func row(_ image: PixelBuffer, upper: Int, lower: Int?) -> String {
        var line = ""
        line.reserveCapacity(image.width * 40)
        // What the terminal has now: nil is its default colour.
        var foreground: Colour?
        var background: Colour?
        func setForeground(_ colour: Colour) {
            guard foreground != colour else { return }
            line += "\u{1B}[38;2;\(colour.red);\(colour.green);\(colour.blue)m"
            foreground = colour
        }
        func setBackground(_ colour: Colour?) {
            guard background != colour else { return }
            if let colour {
                line += "\u{1B}[48;2;\(colour.red);\(colour.green);\(colour.blue)m"
            } else {
                line += "\u{1B}[49m"
            }
            background = colour
        }
        for x in 0..<image.width {
            let top = colour(image, x: x, y: upper)
            let bottom = lower.flatMap { colour(image, x: x, y: $0) }
            switch (top, bottom) {
            case (let top?, let bottom):
                setForeground(top)
                setBackground(bottom)
                line += "▀"
            case (nil, let bottom?):
                setForeground(bottom)
                setBackground(nil)
                line += "▄"
            case (nil, nil):
                setBackground(nil)
                line += " "
            }
        }
        return line + "\u{1B}[0m"
    }

    private static func colour(_ image: PixelBuffer, x: Int, y: Int) -> Colour? {
        let base = (y * image.width + x) * image.channels
        let pixels = image.pixels
        switch image.channels {
        case 1:
            return Colour(red: pixels[base], green: pixels[base], blue: pixels[base])
        case 2:
            guard pixels[base + 1] >= 128 else { return nil }
            return Colour(red: pixels[base], green: pixels[base], blue: pixels[base])
        case 4:
            guard pixels[base + 3] >= 128 else { return nil }
            return Colour(red: pixels[base], green: pixels[base + 1], blue: pixels[base + 2])
        default:
            return Colour(red: pixels[base], green: pixels[base + 1], blue: pixels[base + 2])
        }
    }

    /// The columns `text` takes on screen, not counting escape sequences.
    static func visibleWidth(_ text: String) -> Int {
        var width = 0
        var inEscape = false
        for scalar in text.unicodeScalars {
            if inEscape {
                if (0x40...0x7E).contains(scalar.value) && scalar != "[" { inEscape = false }
            } else if scalar == "\u{1B}" {
                inEscape = true
            } else {
                width += TextWidth.of(scalar)
            }
        }
        return width
    }
}
