import TenbinKit
import TenbinSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a command runs with: the store, the environment, and where output goes.
struct Context {
    /// The store folder: `--store`, else `$TENBIN_STORE`, else `./Storage`.
    let storePath: String
    let environment: [String: String]

    init(storeOption: String?, environment: [String: String]) {
        self.environment = environment
        if let storeOption, !storeOption.isEmpty {
            storePath = storeOption
        } else if let variable = environment["TENBIN_STORE"], !variable.isEmpty {
            storePath = variable
        } else {
            storePath = "./Storage"
        }
    }

    var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Colour only on a terminal, and never with NO_COLOR set.
    var useColor: Bool { stdoutIsTerminal && Self.colorAllowed(by: environment) }

    /// Whether the environment lets tenbin use colour at all: not with a non-empty `NO_COLOR`
    /// (no-color.org) nor on a `TERM=dumb` terminal. Every coloured output asks this.
    static func colorAllowed(by environment: [String: String]) -> Bool {
        (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// The terminal's width in columns, or `$COLUMNS`, or 80.
    var terminalWidth: Int {
        var size = winsize()
        if stdoutIsTerminal, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return 80
    }

    var formatter: PosterFormatter { PosterFormatter(width: terminalWidth, color: useColor) }

    /// Opens the board; `create` makes the store on first write.
    func board(create: Bool, limits: ImageLimits = ImageLimits(), encoding: EncodingOptions = EncodingOptions()) throws -> Board {
        try Board(Board.Configuration(storePath: storePath, limits: limits, encoding: encoding), create: create)
    }
}

/// Writes to standard output.
enum Output {
    static func line(_ text: String) {
        print(text)
    }

    /// Raw bytes to standard output (for `tenbin image`).
    static func bytes(_ bytes: [UInt8]) throws {
        let failure = FileDescriptor.writeAll(bytes, to: STDOUT_FILENO)
        guard failure == 0 else { throw CommandFailure("cannot write to standard output: \(String(cString: strerror(failure)))") }
    }
}

/// A failure that is not a usage error, with its message for the user (exit 1).
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
