import Glibc
import TenbinKit

/// `tenbin post IMAGE1 IMAGE2 [--text TEXT] [--tag TAG]… [--alt1 TEXT] [--alt2 TEXT] [--json]`
enum PostCommand: Command {
    static let spec = CommandSpec(
        name: "post",
        abstract: "Post two images as a new poster.",
        usage: "IMAGE1 IMAGE2 [--text TEXT] [--tag TAG]... [--alt1 TEXT] [--alt2 TEXT] [--json]",
        discussion: """
            Both images are checked and re-encoded before anything is written: scaled to fit the
            maximum edge, EXIF orientation applied, all metadata dropped, stored as JPEG (PNG when
            the image has real transparency). Identical images are stored once. An image on the
            board's blocklist (tenbin moderation blocklist) is refused, and so is a post the
            --scan-command program refuses.
            """
    )

    struct Options: OptionGroup {
        var image1 = Argument.text("IMAGE1", help: "The first image (JPEG, PNG, WebP, HEIC or AVIF), or - for standard input.")
        var image2 = Argument.text("IMAGE2", help: "The second image (JPEG, PNG, WebP, HEIC or AVIF), or - for standard input.")
        var text = Option.text(["--text"], value: "TEXT", help: "The question shown with the images.")
        var tag = Option.repeated(["--tag"], value: "TAG", help: "A hashtag (repeatable; a leading # is dropped).")
        var alt1 = Option.text(["--alt1"], value: "TEXT", help: "What the first image shows, for people who cannot see it.")
        var alt2 = Option.text(["--alt2"], value: "TEXT", help: "What the second image shows, for people who cannot see it.")
        var json = Flag.json("Print the new poster as JSON.")
        var image = ImageOptions()
        var scan = ScanOptions()
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        let files = [try arguments.image1, try arguments.image2]
        let (limits, encoding) = try ImageOptions.parse(arguments.image)
        if files.allSatisfy({ $0 == "-" }) {
            throw UsageError("only one image can come from standard input ('-')", command: spec)
        }
        if files.contains("-") && isatty(STDIN_FILENO) == 1 {
            throw UsageError("'-' reads the image from standard input, which is a terminal; pipe the image in", command: spec)
        }
        let contents = try arguments.text ?? ""
        let hashtags = try arguments.tag
        let (alt1, alt2) = (try arguments.alt1 ?? "", try arguments.alt2 ?? "")
        // The board checks this too; checked first here, a refused post creates no store.
        try PosterTextLimits.check(contents: contents, hashtags: hashtags)
        try PosterTextLimits.check(alt1: alt1, alt2: alt2)
        let scanner = try ScanOptions.parse(arguments.scan)
        context.noteReadingsOff()
        let poster = try context.withBoard(.create, limits: limits, encoding: encoding, scanner: scanner) { board in
            let images = try files.map { try upload($0, limits: limits) }
            let draft = PosterDraft(
                image1: images[0], image2: images[1], contents: contents, hashtags: hashtags, alt1: alt1, alt2: alt2)
            context.markers.reach("post:begin")
            let poster = try board.post(draft)
            context.markers.reach("post:end")
            return poster
        }
        Output.line(arguments.json ? JSON.poster(poster) : "Posted #\(poster.id).\n" + context.formatter.detail(poster))
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
struct ImageOptions: OptionGroup {
    var maxEdge = Option.integer(
        ["--max-edge"], value: "PX", help: "Scale stored images to fit this longest edge.", in: 16...20000,
        default: EncodingOptions().maxEdge)
    var quality = Option.integer(
        ["--quality"], value: "Q", help: "JPEG quality of stored images, 1-100.", in: 1...100,
        default: EncodingOptions().jpegQuality)
    var maxFileMB = Option.integer(
        ["--max-file-mb"], value: "MB", help: "Refuse uploads larger than this many MiB.", in: 1...4096,
        default: ImageLimits().maxFileBytes >> 20)
    var maxMegapixels = Option.integer(
        ["--max-megapixels"], value: "MP", help: "Refuse images with more megapixels.", in: 1...1000,
        default: ImageLimits().maxPixels / 1_000_000)
    var maxSide = Option.integer(
        ["--max-side"], value: "PX", help: "Refuse images with a longer side.", in: 1...65535,
        default: ImageLimits().maxSide)

    static func parse(_ arguments: ParsedArguments<ImageOptions>) throws -> (ImageLimits, EncodingOptions) {
        let limits = ImageLimits(
            maxFileBytes: try arguments.maxFileMB << 20, maxPixels: try arguments.maxMegapixels * 1_000_000,
            maxSide: try arguments.maxSide)
        let encoding = EncodingOptions(maxEdge: try arguments.maxEdge, jpegQuality: try arguments.quality)
        return (limits, encoding)
    }
}
