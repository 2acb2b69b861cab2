import TenbinKit

/// `tenbin post IMAGE1 IMAGE2 [--text TEXT] [--tag TAG]… [--json]`
enum PostCommand: Command {
    static let spec = CommandSpec(
        name: "post",
        abstract: "Post two images as a new poster.",
        usage: "IMAGE1 IMAGE2 [--text TEXT] [--tag TAG]... [--json]",
        arguments: [("IMAGE1", "The first image (JPEG or PNG)."), ("IMAGE2", "The second image (JPEG or PNG).")],
        options: [
            .init(names: ["--text"], value: "TEXT", help: "The question shown with the images."),
            .init(names: ["--tag"], value: "TAG", help: "A hashtag (repeatable; a leading # is dropped).", repeatable: true),
            .init(names: ["--json"], value: nil, help: "Print the new poster as JSON."),
        ] + ImageOptions.options,
        discussion: """
            Both images are checked and re-encoded before anything is written: scaled to fit the
            maximum edge, EXIF orientation applied, all metadata dropped, stored as JPEG (PNG when
            the image has real transparency). Identical images are stored once.
            """
    )

    static func run(_ arguments: ParsedArguments, context: Context) throws -> Int32 {
        try arguments.expectPositionals(2...2)
        let (limits, encoding) = try ImageOptions.parse(arguments)
        let board = try context.board(create: true, limits: limits, encoding: encoding)
        let draft = PosterDraft(
            image1: .file(arguments.positionals[0]), image2: .file(arguments.positionals[1]),
            contents: arguments.value("--text") ?? "", hashtags: arguments.all("--tag"))
        let poster = try board.post(draft)
        Output.line(arguments.flag("--json") ? JSON.poster(poster) : "Posted #\(poster.id).\n" + context.formatter.detail(poster))
        return 0
    }
}

/// The image limit and encoding options shared by every command that stores images.
enum ImageOptions {
    static let options: [CommandSpec.Option] = [
        .init(names: ["--max-edge"], value: "PX", help: "Scale stored images to fit this longest edge (default 2048)."),
        .init(names: ["--quality"], value: "Q", help: "JPEG quality of stored images, 1-100 (default 50)."),
        .init(names: ["--max-file-mb"], value: "MB", help: "Refuse uploads larger than this many MiB (default 50)."),
        .init(names: ["--max-megapixels"], value: "MP", help: "Refuse images with more megapixels (default 50)."),
        .init(names: ["--max-side"], value: "PX", help: "Refuse images with a longer side (default 20000)."),
    ]

    static func parse(_ arguments: ParsedArguments) throws -> (ImageLimits, EncodingOptions) {
        let defaults = ImageLimits()
        let limits = ImageLimits(
            maxFileBytes: try arguments.integer("--max-file-mb", in: 1...4096, default: defaults.maxFileBytes >> 20) << 20,
            maxPixels: try arguments.integer("--max-megapixels", in: 1...1000, default: defaults.maxPixels / 1_000_000) * 1_000_000,
            maxSide: try arguments.integer("--max-side", in: 1...65535, default: defaults.maxSide))
        let encoding = EncodingOptions(
            maxEdge: try arguments.integer("--max-edge", in: 16...20000, default: EncodingOptions().maxEdge),
            jpegQuality: try arguments.integer("--quality", in: 1...100, default: EncodingOptions().jpegQuality))
        return (limits, encoding)
    }
}
