import Glibc
import TenbinKit
import TenbinPostgres

/// What a command runs with: the store, the environment, and where output goes.
struct Context {
    /// The store folder: `--store`, else `$TENBIN_STORE`, else `./Storage`.
    let storePath: String
    /// Where ``storePath`` came from, as a hint names it.
    let storeOrigin: String
    /// Whether the store folder was given (`--store` or `$TENBIN_STORE`), not the default.
    let storeGiven: Bool
    let environment: [String: String]

    init(storeOption: String?, environment: [String: String]) {
        self.environment = environment
        if let storeOption, !storeOption.isEmpty {
            storePath = storeOption
            storeOrigin = "from --store"
            storeGiven = true
        } else if let variable = environment["TENBIN_STORE"], !variable.isEmpty {
            storePath = variable
            storeOrigin = "from TENBIN_STORE"
            storeGiven = true
        } else {
            storePath = Self.defaultStore
            storeOrigin = "the default, \(Self.defaultStore) in the current folder"
            storeGiven = false
        }
    }

    /// The store folder when neither `--store` nor `$TENBIN_STORE` names one.
    static let defaultStore = "./Storage"

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
    private(set) var databasePoolSize = ConnectionPool.defaultSize

    /// Chooses the backend from `--database` and the environment.
    mutating func choose(database option: String?, poolSize: Int) throws {
        if let option, !option.isEmpty {
            databaseURL = option
        } else if let variable = environment["TENBIN_DATABASE_URL"], !variable.isEmpty {
            databaseURL = variable
        }
        databasePoolSize = poolSize
    }

    /// Hot standbys of the database that reads go to (`serve --replica`), and how far behind
    /// the primary one may fall.
    private(set) var replicaURLs: [String] = []
    private(set) var replicaMaxLag = PostgresStore.defaultReplicaMaxLag

    /// Chooses the standbys reads go to; they need a PostgreSQL database.
    mutating func chooseReplicas(_ urls: [String], maxLag: Duration) throws {
        guard !urls.isEmpty else { return }
        guard databaseURL != nil else {
            throw UsageError("--replica needs a PostgreSQL database (--database or TENBIN_DATABASE_URL): standbys are of a primary")
        }
        for url in urls {
            if url.allSatisfy(\.isWhitespace) {
                throw UsageError("'--replica' takes a PostgreSQL connection string or URI, not an empty one")
            }
            do {
                _ = try ConnectionTarget(url)
            } catch let error as PostgresError {
                throw UsageError("'--replica': \(error.message)")
            }
        }
        guard Set(urls).count == urls.count else { throw UsageError("'--replica' names the same standby twice") }
        guard !urls.contains(databaseURL ?? "") else {
            throw UsageError("'--replica' names the primary (--database) itself; give its hot standbys")
        }
        replicaURLs = urls
        replicaMaxLag = maxLag
    }

    /// Where a test watches tenbin reach named points (see ``TestMarkers``).
    var markers: TestMarkers { TestMarkers(environment: environment) }

    var formatter: PosterFormatter { PosterFormatter(width: terminalWidth, color: useColor) }

    /// Opens the board for `access` (see ``BoardLocation/Access``), its live feeds waiting as
    /// `live` says. A command that does not create a SQLite store that does not exist (a reader
    /// shows an empty board, a vote fails) first says on stderr which folder it looked at and
    /// how to choose another (unless `noteIfMissing` is off).
    func board(
        _ access: BoardLocation.Access, limits: ImageLimits = ImageLimits(), encoding: EncodingOptions = EncodingOptions(),
        noteIfMissing: Bool = true, live: LiveFeeds.Options = LiveFeeds.Options(), reportThreshold: Int = Board.defaultReportThreshold,
        scanner: ImageScanner? = nil
    ) throws -> Board {
        var configuration = Board.Configuration(limits: limits, encoding: encoding, live: live, reportThreshold: reportThreshold)
        configuration.scanner = scanner
        if databaseURL == nil, noteIfMissing, let note = missingStoreNote() {
            switch access {
            case .read, .write: Errors.write(note)
            case .create, .serve: break
            }
        }
        return try location().open(access, configuration: configuration)
    }

    /// Runs `body` with the board opened for `access` (as ``board(_:limits:encoding:noteIfMissing:)``)
    /// and closes the board when it returns or throws, so the store is closed before tenbin exits.
    func withBoard<T>(
        _ access: BoardLocation.Access, limits: ImageLimits = ImageLimits(), encoding: EncodingOptions = EncodingOptions(),
        noteIfMissing: Bool = true, scanner: ImageScanner? = nil, _ body: (Board) throws -> T
    ) throws -> T {
        let board = try board(access, limits: limits, encoding: encoding, noteIfMissing: noteIfMissing, scanner: scanner)
        defer { board.close() }
        return try body(board)
    }

    /// Says on stderr, in one line, that search by reading is off (libmecab or its dictionary
    /// is missing), for a command that writes search keys: the posters it writes are found by a
    /// kana query only where it matches the text as written. Only such commands load MeCab.
    func noteReadingsOff() {
        if let off = SearchReadings.unavailable {
            Errors.write("note: search by reading is off: \(off); kana queries find these posters only as written")
        }
    }

    /// The board's location: the store folder, and the database when one was chosen. With a
    /// database the folder holds only the images, and must be given: the default `./Storage`
    /// of wherever the command runs would serve a board without its images.
    func location() throws -> BoardLocation {
        if databaseURL != nil && !storeGiven {
            throw UsageError(
                "with --database (or TENBIN_DATABASE_URL), give the blob folder too: --store DIR or TENBIN_STORE (its blobs/ holds the images)"
            )
        }
        return BoardLocation(
            folder: storePath, database: databaseURL, poolSize: databasePoolSize, replicas: replicaURLs, replicaMaxLag: replicaMaxLag)
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
