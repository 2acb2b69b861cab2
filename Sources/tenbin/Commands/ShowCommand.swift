import TenbinKit

/// `tenbin show ID [--json] [--images | --no-images] [--cache-mb MB] [--cache-count N]`, or
/// `tenbin show ID --timeline [--bucket minute|hour|day] [--json]`
enum ShowCommand: Command {
    static let spec = CommandSpec(
        name: "show",
        abstract: "Show one poster, or its votes over time.",
        usage: "ID [--json] [--images | --no-images] [--cache-mb MB] [--cache-count N] | ID --timeline [--bucket minute|hour|day] [--json]"
    )

    struct Options: OptionGroup {
        var id = Argument.posterID()
        var json = Flag.json("Print the poster (with --timeline, its buckets) as JSON.")
        var timeline = Flag(["--timeline"], help: "Show the poster's votes over time: a sparkline per side.")
        var bucket = Option<TimelineBucketSize?>.bucket
        var drawing = DrawingOptions.Group()
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        if arguments.timeline { return try timeline(arguments, context: context) }
        if try arguments.bucket != nil { throw UsageError("'--bucket' is for '--timeline'", command: spec) }
        // Drawing images awaits their parallel loading; everything else stays synchronous.
        if try DrawingOptions.parse(arguments.drawing, context: context, json: arguments.json, byDefault: .onATruecolorTerminal).draw {
            try arguments.expectPositionals()
            return try context.withBoard(.read) { board in
                try Blocking.run { try await drawn(arguments, board: board, context: context) }
            }
        }
        try arguments.expectPositionals()
        let poster = try context.withBoard(.read) { try $0.poster(id: try arguments.id) }
        Output.line(arguments.json ? JSON.poster(poster) : context.formatter.detail(poster))
        return 0
    }

    /// `--timeline`: the buckets as JSON, or a sparkline of each side.
    static func timeline(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        let id = try arguments.id
        let size = try arguments.bucket ?? .hour
        let buckets = try context.withBoard(.read) { try $0.timeline(poster: id, bucket: size) }
        if arguments.json {
            Output.line(JSON.timeline(buckets))
        } else {
            for line in TimelineSparkline(buckets: buckets, size: size, width: context.terminalWidth).lines(id: id) { Output.line(line) }
        }
        return 0
    }

    /// Shows the poster with its images drawn (loading them awaits).
    static func drawn(_ arguments: ParsedArguments<Options>, board: Board, context: Context) async throws -> Int32 {
        let options = try DrawingOptions.parse(arguments.drawing, context: context, json: false, byDefault: .onATruecolorTerminal)
        let poster = try board.poster(id: try arguments.id)
        return PosterImages.print(await PosterImages.detail(poster, board: board, options: options, context: context))
    }
}

extension Option where Value == TimelineBucketSize? {
    /// `--bucket minute|hour|day`, nil when absent (hour, for `--timeline`).
    static var bucket: Self {
        let info = CommandSpec.Option(
            names: ["--bucket"], value: "minute|hour|day",
            help: CommandSpec.Option.help("With --timeline: each bucket's span.", default: "hour"))
        return Option(info: info) { texts throws(UsageError) in
            guard let text = texts.last else { return nil }
            guard let size = TimelineBucketSize(name: text) else {
                throw UsageError("'--bucket' takes one of minute, hour, day, not '\(text)'")
            }
            return size
        }
    }
}
