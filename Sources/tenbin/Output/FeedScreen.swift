import TenbinKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `tenbin watch` on a terminal: the feed drawn on the alternate screen, where only the rows
/// whose text changed are rewritten. Rows a change set touched are marked until the next one.
///
/// The observation task draws updates and the resize signal handler redraws, from different
/// threads: `state` (a mutex) serialises them, which is what makes the class `Sendable`.
final class FeedScreen: Sendable {
    private struct State {
        var posters: [Poster] = []
        /// Ids added or modified by the last change set.
        var touched: Set<Int64> = []
        /// The text of each screen row as drawn (row 1 first).
        var drawn: [String] = []
        var savedTerminal: termios?
        var active = false
    }

    private let title: String
    private let color: Bool
    private let state = Locked(State())

    init(feed: Feed, color: Bool) {
        var title = "tenbin watch · \(feed.order.rawValue), up to \(feed.limit)"
        if let query = feed.query, !query.allSatisfy(\.isWhitespace) { title += " · matching \"\(SafeText.terminal(query))\"" }
        self.title = title
        self.color = color
    }

    /// Switches to the alternate screen, hides the cursor and stops echoing keys.
    func begin() throws {
        try state.withLock { state in
            var settings = termios()
            if isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &settings) == 0 {
                state.savedTerminal = settings
                settings.c_lflag &= ~tcflag_t(ECHO)
                _ = tcsetattr(STDIN_FILENO, TCSANOW, &settings)  // without it keys echo; nothing worse
            }
            state.active = true
            try Output.bytes(Array("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J".utf8))
        }
    }

    /// Leaves the alternate screen and gives the terminal back as it was.
    func end() {
        state.withLock { state in
            guard state.active else { return }
            state.active = false
            if var saved = state.savedTerminal {
                _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved)  // best effort: the terminal may be gone
            }
            _ = try? Output.bytes(Array("\u{1B}[?25h\u{1B}[?1049l".utf8))  // best effort: the terminal may be gone
        }
    }

    /// Applies an update and rewrites the rows that changed.
    func show(_ update: FeedUpdate) throws {
        try state.withLock { state in
            switch update {
            case .snapshot(let posters):
                state.posters = posters
                state.touched = []
            case .changes(let changes):
                state.posters = try FeedDiff.apply(changes, to: state.posters)
                state.touched = Set(changes.compactMap { $0.newIndex == nil ? nil : $0.poster.id })
            }
            try redraw(&state)
        }
    }

    /// Redraws every row (after the terminal was resized).
    func redrawAll() throws {
        try state.withLock { state in
            guard state.active else { return }
            state.drawn = []
            try Output.bytes(Array("\u{1B}[H\u{1B}[2J".utf8))
            try redraw(&state)
        }
    }

    private func redraw(_ state: inout State) throws {
        let (width, height) = Self.terminalSize()
        let lines = render(state, width: width, height: height)
        var out = ""
        for row in 0..<max(lines.count, state.drawn.count)
        where row >= state.drawn.count || row >= lines.count || lines[row] != state.drawn[row] {
            out += "\u{1B}[\(row + 1);1H\u{1B}[2K" + (row < lines.count ? lines[row] : "")
        }
        state.drawn = lines
        if !out.isEmpty { try Output.bytes(Array(out.utf8)) }
    }

    private func render(_ state: State, width: Int, height: Int) -> [String] {
        let quit = "Ctrl-C to quit"
        let header = TextWidth.truncate(title, to: max(10, width - quit.count - 2))
        var lines = [header + String(repeating: " ", count: max(2, width - TextWidth.of(header) - quit.count)) + quit, ""]
        guard !state.posters.isEmpty else { return lines + ["No posters."] }
        let room = max(1, height - lines.count)
        let shown = state.posters.count > room ? Array(state.posters.prefix(room - 1)) : state.posters
        let rows = PosterFormatter(width: width - 2, color: color).list(shown).split(separator: "\n", omittingEmptySubsequences: false)
        for (poster, row) in zip(shown, rows) {
            let marked = state.touched.contains(poster.id)
            lines.append(marked ? (color ? "\u{1B}[1m•\u{1B}[0m " : "• ") + row : "  " + row)
        }
        if shown.count < state.posters.count { lines.append("  … \(state.posters.count - shown.count) more below") }
        return lines
    }

    private static func terminalSize() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }
}
