import Glibc
import TenbinKit

/// `tenbin export [--format csv|jsonl] [--excel] [--timelines] [--output FILE]`
enum ExportCommand: Command {
    static let spec = CommandSpec(
        name: "export",
        abstract: "Write every poster as CSV or JSON Lines.",
        usage: "[--format csv|jsonl] [--excel] [--timelines] [--output FILE]",
        discussion: """
            Writes every poster, lowest id first (id, creation time, question, hashtags, both counts and \
            both images' digests), from one snapshot of the store while votes and posts go on. CSV follows \
            RFC 4180: a header line, CRLF line ends, fields with commas, quotes or line breaks quoted, UTF-8 \
            without a byte-order mark. --excel adds the mark and starts any question or hashtags that a \
            spreadsheet would run as a formula with a '. JSON Lines has one poster object per line, the \
            API's shape. --timelines adds each poster's votes over time, as kept (per minute for 48 hours, \
            per hour for 90 days, per day before): a "timeline" array on each JSON line, or, in CSV, a table \
            of buckets (id, start, bucket, good1, good2) instead of the posters. To standard output, or to FILE, written whole or not at all. A terminal on \
            standard error shows progress.
            """
    )

    struct Options: OptionGroup {
        var format = Option<ExportFormat>.choice(["--format"], value: "csv|jsonl", help: "The file format.", default: .csv)
        var excel = Flag(["--excel"], help: "CSV for spreadsheets: a byte-order mark, formulas neutralised.")
        var timelines = Flag(["--timelines"], help: "Add each poster's timeline (CSV: a table of its buckets).")
        var output = Option.text(["--output", "-o"], value: "FILE", help: "Write to FILE instead of standard output.")
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        var options = ExportOptions(format: try arguments.format, excel: arguments.excel, timelines: arguments.timelines)
        if options.excel && options.format != .csv { throw UsageError("'--excel' is for '--format csv'", command: spec) }
        let output = try arguments.output
        if let output, output.isEmpty { throw UsageError("'--output' needs a file name", command: spec) }
        options.forTerminal = output == nil && context.stdoutIsTerminal
        return try context.withBoard(.read) { board in
            let line = ProgressLine(enabled: isatty(STDERR_FILENO) == 1, environment: context.environment)
            defer { line.finish() }
            let sink = try OutputFile(path: output)
            do {
                try board.export(options, write: { try sink.write($0) }) { progress in
                    line.show(text: "exported \(progress.done) of \(progress.total) posters")
                }
                try sink.finish()
            } catch {
                sink.abandon()
                throw error
            }
            return 0
        }
    }
}
