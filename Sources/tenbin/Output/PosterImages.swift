import TenbinKit

/// Drawing posters with their images, for every command that shows posters (`show`, `list`,
/// and later `search`): all the thumbnails the page needs are loaded in one parallel batch
/// through the board's image pipeline, then the posters are laid out.
enum PosterImages {
    /// What was drawn, and the images that could not be loaded.
    struct Drawn {
        var text: String
        /// One sentence per image that failed, naming the poster and side.
        var failures: [String]
    }

    /// Posters as a list of cards.
    static func list(_ posters: [Poster], board: Board, options: DrawingOptions, context: Context) async -> Drawn {
        guard !posters.isEmpty else { return Drawn(text: "No posters.", failures: []) }
        let drawing = PosterDrawing(
            width: context.terminalWidth, maxImageColumns: PosterDrawing.listColumns, formatter: context.formatter, mode: options.mode,
            cell: options.cell)
        let (images, failures) = await load(posters, size: drawing.imageSize, board: board, options: options)
        let cards = zip(posters, images).map { drawing.card($0, images: $1).joined(separator: "\n") }
        return Drawn(text: cards.joined(separator: "\n\n"), failures: failures)
    }

    /// One poster in full.
    static func detail(_ poster: Poster, board: Board, options: DrawingOptions, context: Context) async -> Drawn {
        let drawing = PosterDrawing(
            width: context.terminalWidth, maxImageColumns: PosterDrawing.detailColumns, formatter: context.formatter, mode: options.mode,
            cell: options.cell)
        let (images, failures) = await load([poster], size: drawing.imageSize, board: board, options: options)
        return Drawn(text: drawing.detail(poster, images: images[0]).joined(separator: "\n"), failures: failures)
    }

    /// Both images of every poster at `size`, in one batch; per poster, first then second.
    private static func load(_ posters: [Poster], size: ImageSize, board: Board, options: DrawingOptions) async
        -> (images: [[Result<PixelBuffer, any Error>]], failures: [String])
    {
        let pipeline = board.imagePipeline(cacheLimits: options.cacheLimits)
        let results = await pipeline.images(for: posters.flatMap { $0.imageRequests(size: size) })
        var images: [[Result<PixelBuffer, any Error>]] = []
        var failures: [String] = []
        for (index, poster) in posters.enumerated() {
            let pair = Array(results[index * 2..<index * 2 + 2])
            for (side, result) in pair.enumerated() {
                if case .failure(let error) = result {
                    failures.append("poster #\(poster.id), image \(side + 1): cannot be drawn: \(error)")
                }
            }
            images.append(pair)
        }
        return (images, failures)
    }

    /// Prints what was drawn and reports failures: exit 1 when any image was missing.
    static func print(_ drawn: Drawn) -> Int32 {
        Output.line(drawn.text)
        for failure in drawn.failures { Errors.write("Error: \(failure)") }
        return drawn.failures.isEmpty ? 0 : 1
    }
}

extension PosterImages {
    /// Prints a page of posters (`list`, `search`) as it was asked for: a JSON array, the
    /// posters with their images drawn, or one text row each. Returns the exit status.
    static func printPage(
        _ posters: [Poster], board: Board, json: Bool, drawing: ParsedArguments<DrawingOptions.Group>, context: Context
    ) throws -> Int32 {
        // Lists are for scanning: compact rows unless `--images` asks for pictures.
        let options = try DrawingOptions.parse(drawing, context: context, json: json, byDefault: .never)
        if options.draw {
            // All forty thumbnails of a page of twenty load in one parallel batch.
            return try Blocking.run { print(await list(posters, board: board, options: options, context: context)) }
        }
        Output.line(json ? JSON.posters(posters) : context.formatter.list(posters))
        return 0
    }
}
