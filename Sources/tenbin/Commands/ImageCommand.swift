import TenbinKit

/// `tenbin image ID 1|2 [-o FILE]`
enum ImageCommand: Command {
    static let spec = CommandSpec(
        name: "image",
        abstract: "Write one of a poster's stored images.",
        usage: "ID 1|2 [-o FILE]",
        discussion: "The bytes are the stored ones, exactly: JPEG or PNG as `tenbin show` says."
    )

    struct Options: OptionGroup {
        var id = Argument.posterID()
        var side = Argument.side(help: "Which image.", what: "the image")
        var output = Option.text(
            ["-o", "--output"], value: "FILE", help: "Write to FILE instead of standard output (- is standard output).")
    }

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        let id = try arguments.id
        let side = try arguments.side
        // `-o -` is standard output, as `-` is standard input to `post`.
        let output = try arguments.output.flatMap { $0 == "-" ? nil : $0 }
        if output == nil && context.stdoutIsTerminal {
            throw UsageError("refusing to write image bytes to a terminal; use -o FILE or a redirect", command: spec)
        }
        let (_, bytes) = try context.withBoard(.read) { try $0.imageBytes(id: id, side: side) }
        if let output {
            try FileOutput.writeAtomically(bytes, to: output)
        } else {
            try Output.bytes(bytes)
        }
        return 0
    }
}
