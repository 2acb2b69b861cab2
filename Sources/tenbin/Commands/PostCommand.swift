import TenbinKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `tenbin post IMAGE1 IMAGE2 [--text TEXT] [--tag TAG]… [--json]`
enum PostCommand: Command {
    static let spec = CommandSpec(
        name: "post",
        abstract: "Post two images as a new poster.",
        usage: "IMAGE1 IMAGE2 [--text TEXT] [--tag TAG]... [--json]",
        arguments: [
            ("IMAGE1", "The first image (JPEG or PNG), or - for standard input."),
            ("IMAGE2", "The second image (JPEG or PNG), or - for standard input."),
        ],
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
        if arguments.positionals.allSatisfy({ $0 == "-" }) {
            throw UsageError("only one image can come from standard input ('-')", command: spec)
        }
        if arguments.positionals.contains("-") && isatty(STDIN_FILENO) == 1 {
            throw UsageError("'-' reads the image from standard input, which is a terminal; pipe the image in", command: spec)
        }
        let board = try context.board(create: true, limits: limits, encoding: encoding)
        let images = try arguments.positionals.map { try upload($0, limits: limits) }
        let draft = PosterDraft(
            image1: images[0], image2: images[1],
            contents: arguments.value("--text") ?? "", hashtags: arguments.all("--tag"))
        let poster = try board.post(draft)
        Output.line(arguments.flag("--json") ? JSON.poster(poster) : "Posted #\(poster.id).\n" + context.formatter.detail(poster))
        return 0
    }
}

extension PostCommand {
    /// How errors name an image read from standard input.
    static let standardInputLabel = "standard input"

    /// The upload for one IMAGE argument: a file, or `-` for standard input, read whole (but
    /// never more than one byte past the file-size limit, which the codec then refuses).
    static func upload(_ argument: String, limits: ImageLimits) throws -> ImageUpload {
        guard argument == "-" else { return .file(argument) }
        switch FileDescriptor.readAll(STDIN_FILENO, limit: limits.maxFileBytes) {
        case .success(let bytes): return .bytes(bytes, label: standardInputLabel)
        case .failure(let error):
            throw CommandFailure("\(standardInputLabel): cannot be read: \(String(cString: strerror(error.code)))")
        }
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
