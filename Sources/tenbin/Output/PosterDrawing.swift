import TenbinKit

/// Posters with their two images side by side, as half-block pictures (see
/// ``TerminalImage``), hashtags above them and the vote bar and counts under them, the way
/// the original app showed a poster. Every line fits `width` columns.
struct PosterDrawing {
    /// Terminal columns available.
    var width: Int
    /// The widest an image may be, in columns (a list keeps posters compact).
    var maxImageColumns: Int
    /// Bar colours and text layout.
    var formatter: PosterFormatter
    /// How the pictures are drawn (never `auto`).
    var mode: ImageMode = .halfblock
    /// A character cell's size in pixels, for libchafa's real images.
    var cell: (width: Int, height: Int) = (10, 20)

    /// Columns between the two images.
    static let gap = 2
    /// The widest images `tenbin list` draws.
    static let listColumns = 32
    /// The widest images `tenbin show` draws.
    static let detailColumns = 64

    init(
        width: Int, maxImageColumns: Int, formatter: PosterFormatter, mode: ImageMode = .halfblock,
        cell: (width: Int, height: Int) = (10, 20)
    ) {
        self.width = max(8, width)
        self.maxImageColumns = maxImageColumns
        self.formatter = formatter
        self.mode = mode
        self.cell = cell
    }

    /// Columns each image may take.
    var imageColumns: Int { max(1, min(maxImageColumns, (width - Self.gap) / 2)) }

    /// The pixel box images are loaded at, square: for half blocks one pixel per column (two
    /// per row); for libchafa ``TerminalPicture/pixelsPerColumn`` per column.
    var imageSize: ImageSize {
        let side = mode == .halfblock ? imageColumns : imageColumns * TerminalPicture.pixelsPerColumn
        return .thumbnail(width: side, height: side)
    }

    /// Columns the two images and the gap take together.
    var contentWidth: Int { imageColumns * 2 + Self.gap }

    /// A poster in a list: id and question, hashtags, images, bar and counts.
    func card(_ poster: Poster, images: [Result<PixelBuffer, any Error>]) -> [String] {
        var lines = [TextWidth.truncate("#\(poster.id)  \(poster.displayQuestion(.one))", to: width)]
        if !poster.hashtags.isEmpty { lines.append(TextWidth.truncate(hashtags(poster), to: width)) }
        return lines + pictures(poster, images: images) + votes(poster)
    }

    /// One poster in full: date, hashtags, question, images, bar and counts, and what the
    /// stored images are.
    func detail(_ poster: Poster, images: [Result<PixelBuffer, any Error>]) -> [String] {
        var lines = ["Poster #\(poster.id) · \(poster.createdAt)"]
        if !poster.hashtags.isEmpty { lines.append(hashtags(poster)) }
        lines.append(poster.displayQuestion(.many))
        lines.append("")
        lines += pictures(poster, images: images) + votes(poster)
        lines.append("")
        for (index, image) in poster.images.enumerated() {
            lines.append(
                TextWidth.truncate(
                    "image \(index + 1): \(image.format.rawValue) \(image.width)×\(image.height), \(image.bytes) bytes, sha256 \(image.digest.hex.prefix(16))…",
                    to: width))
        }
        return lines
    }

    private func hashtags(_ poster: Poster) -> String {
        poster.displayHashtags.joined(separator: " ")
    }

    /// The two images side by side, each centred in its half; an image that could not be
    /// loaded is replaced by a line saying so. libchafa draws the pair as one picture; when it
    /// cannot (or an image is missing), half blocks do.
    func pictures(_ poster: Poster, images: [Result<PixelBuffer, any Error>]) -> [String] {
        if mode != .halfblock, let drawn = chafaPictures(images) { return drawn }
        return halfBlockPictures(images)
    }

    /// Both images as one libchafa picture `contentWidth` columns wide: lines of symbols, or
    /// one line holding a kitty, sixel or iTerm2 image. Nil when an image is missing or
    /// libchafa fails.
    private func chafaPictures(_ images: [Result<PixelBuffer, any Error>]) -> [String]? {
        let loaded = images.compactMap { try? $0.get() }
        guard loaded.count == images.count else { return nil }
        let perColumn = TerminalPicture.pixelsPerColumn
        // A row is as many of the canvas's pixels tall as a cell's shape makes it.
        let rowPixels = max(1, perColumn * cell.height / max(1, cell.width))
        let (canvas, rows) = TerminalPicture.sideBySide(
            loaded, half: imageColumns * perColumn, gap: Self.gap * perColumn, rowPixels: rowPixels)
        guard let printed = TerminalPicture.chafa(canvas, mode: mode, columns: contentWidth, rows: rows, cell: cell) else { return nil }
        return mode == .symbols ? printed.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) : [printed]
    }

    private func halfBlockPictures(_ images: [Result<PixelBuffer, any Error>]) -> [String] {
        let columns = imageColumns
        let drawn: [[String]] = images.enumerated().map { index, result in
            switch result {
            case .success(let image): TerminalImage.rows(image).map { centred($0, columns: image.width, in: columns) }
            case .failure: [centred(TextWidth.truncate("(image \(index + 1) unavailable)", to: columns), in: columns)]
            }
        }
        let height = drawn.map(\.count).max() ?? 0
        let blank = String(repeating: " ", count: columns)
        // Pad the shorter picture equally above and below so both share a middle line.
        let padded = drawn.map { rows -> [String] in
            let above = (height - rows.count) / 2
            return Array(repeating: blank, count: above) + rows + Array(repeating: blank, count: height - rows.count - above)
        }
        let gap = String(repeating: " ", count: Self.gap)
        return (0..<height).map { row in padded.map { $0[row] }.joined(separator: gap) }
    }

    /// The vote bar under the images, and each side's votes at its end.
    func votes(_ poster: Poster) -> [String] {
        let cells = max(1, contentWidth - 6)
        let bar = "1 " + formatter.bar(poster, cells: cells) + " 2"
        guard let (one, two) = PosterFormatter.sides(poster) else { return [bar, PosterFormatter.noVotes] }
        let gap = max(1, contentWidth - TextWidth.of(one) - TextWidth.of(two))
        return [bar, TextWidth.truncate(one + String(repeating: " ", count: gap) + two, to: width)]
    }

    private func centred(_ text: String, in columns: Int) -> String {
        centred(text, columns: TextWidth.of(text), in: columns)
    }

    /// `text`, `columns` wide, with spaces either side to fill `total`.
    private func centred(_ text: String, columns: Int, in total: Int) -> String {
        let left = max(0, (total - columns) / 2)
        let right = max(0, total - columns - left)
        return String(repeating: " ", count: left) + text + String(repeating: " ", count: right)
    }
}
