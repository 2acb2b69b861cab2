import Glibc
import TenbinKit
import TenbinPostgres
import TenbinSQLite

/// What a command runs with: the store, the environment, and where output goes.
struct Context {
    /// The store folder: `--store`, else `$TENBIN_STORE`, else `./Storage`.
    let storePath: String
    /// Where ``storePath`` came from, as a hint names it.
    let storeOrigin: String
    let environment: [String: String]

    init(storeOption: String?, environment: [String: String]) {
        self.environment = environment
        if let storeOption, !storeOption.isEmpty {
            storePath = storeOption
            storeOrigin = "from --store"
        } else if let variable = environment["TENBIN_STORE"], !variable.isEmpty {
            storePath = variable
            storeOrigin = "from TENBIN_STORE"
        } else {
            storePath = "./Storage"
            storeOrigin = "the default, ./Storage in the current folder"
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

    /// The PostgreSQL database (`--database`, else `$TENBIN_DATABASE_URL`), or nil for the
    /// store folder's SQLite database.
    private(set) var databaseURL: String?
    /// At most this many connections to it.
    private(set) var databasePoolSize = 8

    /// Chooses the backend from `--database` and the environment.
    mutating func choose(database option: String?, poolSize: Int) throws {
        if let option, !option.isEmpty {
            databaseURL = option
        } else if let variable = environment["TENBIN_DATABASE_URL"], !variable.isEmpty {
            databaseURL = variable
        }
        databasePoolSize = poolSize
    }

    /// Where a test watches tenbin reach named points (see ``TestMarkers``).
    var markers: TestMarkers { TestMarkers(environment: environment) }

    var formatter: PosterFormatter { PosterFormatter(width: terminalWidth, color: useColor) }

    /// Opens the board; `create` makes the store on first write. A reading command on a store
    /// that does not exist shows an empty board, so it first says on stderr which folder it
    /// looked at and how to choose another (unless `noteIfMissing` is off).
    func board(
        create: Bool, limits: ImageLimits = ImageLimits(), encoding: EncodingOptions = EncodingOptions(), noteIfMissing: Bool = true
    ) throws -> Board {
        let configuration = Board.Configuration(storePath: storePath, limits: limits, encoding: encoding)
        if let databaseURL {
            // PostgreSQL holds posters; the store folder holds only the blobs, and is made on
            // first write as SQLite's is (the blob store makes only `blobs/` inside it).
            let store = try PostgresStore(url: databaseURL, poolSize: databasePoolSize)
            if create { try FileSystem.makeFolders(storePath) }
            return Board(configuration, store: store, blobs: BlobStore(root: storePath + "/blobs"))
        }
        if !create && noteIfMissing, let note = missingStoreNote() { Errors.write(note) }
        return try Board(configuration, create: create)
    }

    /// `note: no store at /home/me/Storage (the default, …); …`, or nil when something is there.
    func missingStoreNote() -> String? {
        var info = stat()
        guard stat(storePath, &info) != 0 && errno == ENOENT else { return nil }
        var shown = storePath
        if !storePath.hasPrefix("/"), let folder = getcwd(nil, 0) {
            defer { free(folder) }
            let relative = storePath.hasPrefix("./") ? String(storePath.dropFirst(2)) : storePath
            shown = String(cString: folder) + (String(cString: folder) == "/" ? "" : "/") + relative
        }
        return "note: no store at \(shown) (\(storeOrigin)); choose one with --store DIR or TENBIN_STORE."
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
        guard failure == 0 else { throw CommandFailure("standard output: cannot write: \(String(cString: strerror(failure)))") }
    }
}

/// A failure of the command line's own (a terminal or an output file it cannot use), with
/// its message for the user: the environment refuses, so its kind is `unavailable`.
struct CommandFailure: KindedError {
    let description: String

    var kind: ErrorKind { .unavailable }

    init(_ description: String) {
        self.description = description
    }
}
