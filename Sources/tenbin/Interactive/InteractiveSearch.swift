import Dispatch
import TenbinKit

/// `tenbin search -i`: type to search. Keys are read on their own thread, searches run
/// through a ``Debouncer`` once typing pauses, and this view, on the main thread, handles
/// both kinds of event in order and redraws.
struct InteractiveSearch {
    let board: Board
    let order: FeedOrder
    let debounce: Duration
    let context: Context

    /// What the view reacts to.
    enum Event: Sendable {
        case keys([Key])
        case results(query: String, Result<[Poster], any Error>)
    }

    /// Events from both threads, in arrival order; `next` blocks until one is there.
    final class Events: Sendable {
        private let queue = Locked<[Event]>([])
        private let available = DispatchSemaphore(value: 0)

        func post(_ event: Event) {
            queue.withLock { $0.append(event) }
            available.signal()
        }

        func next() -> Event {
            available.wait()
            return queue.withLock { $0.removeFirst() }  // one event per signal, so it is there
        }
    }

    /// What is on screen.
    struct Screen {
        var query = ""
        /// The query the results are for; differs from `query` while a search is pending.
        var shownQuery = ""
        var results: [Poster] = []
        var selected = 0
        var error: String?
    }

    /// Runs until Enter (prints the selected id, 0) or Esc/Ctrl-C (130).
    func run(initialQuery: String) throws -> Int32 {
        let terminal = try RawTerminal()
        defer { terminal.restore() }
        let events = Events()
        let board = self.board
        let order = self.order
        let rows = max(1, terminal.size.rows - 3)
        let debouncer = Debouncer<String, [Poster], ContinuousClock>(
            delay: debounce, clock: ContinuousClock(),
            operation: { query in try board.search(query: query, order: order, limit: min(rows, 200)) },
            deliver: { events.post(.results(query: $0.input, $0.result)) })
        KeyReader.start(fd: terminal.fd) { events.post(.keys($0)) }
        var screen = Screen(query: initialQuery)
        if !SearchQuery(initialQuery).isEmpty { debouncer.send(initialQuery) }
        draw(screen, on: terminal)
        while true {
            switch events.next() {
            case .keys(let keys):
                let before = screen.query
                for key in keys {
                    switch key {
                    case .text(let text): screen.query += text
                    case .backspace: if !screen.query.isEmpty { screen.query.removeLast() }
                    case .clearLine: screen.query = ""
                    case .up: screen.selected = max(0, screen.selected - 1)
                    case .down: screen.selected = min(max(0, screen.results.count - 1), screen.selected + 1)
                    case .enter:
                        guard screen.selected < screen.results.count else { continue }
                        debouncer.cancel()
                        terminal.restore()
                        Output.line(String(screen.results[screen.selected].id))
                        return 0
                    case .escape, .interrupt:
                        debouncer.cancel()
                        return 130
                    }
                }
                if screen.query != before {
                    if SearchQuery(screen.query).isEmpty {
                        // Nothing to search for: clear at once instead of waiting.
                        debouncer.cancel()
                        screen.shownQuery = screen.query
                        screen.results = []
                        screen.selected = 0
                        screen.error = nil
                    } else {
                        debouncer.send(screen.query)
                    }
                }
            case .results(let query, let result):
                guard query == screen.query else { continue }  // typing moved on; a newer search is coming
                screen.shownQuery = query
                switch result {
                case .success(let posters):
                    screen.results = posters
                    screen.error = nil
                case .failure(let error):
                    screen.results = []
                    screen.error = "\(error)"
                }
                screen.selected = 0
            }
            draw(screen, on: terminal)
        }
    }

    /// Redraws everything: the query line, a status line, then one result per line with the
    /// selected one marked `>` (and shown in reverse video when colour is allowed).
    private func draw(_ screen: Screen, on terminal: RawTerminal) {
        let (rows, columns) = terminal.size
        let color = Context.colorAllowed(by: context.environment)
        var lines: [String] = []
        lines.append(TextWidth.truncate("Search: " + oneLine(screen.query), to: columns - 1))
        let status: String
        if let error = screen.error {
            status = "Error: \(SafeText.terminal(error))"
        } else if screen.shownQuery != screen.query {
            status = "Searching…"
        } else if SearchQuery(screen.query).isEmpty {
            status = "Type words to search. ↑/↓ select · Enter prints the id · Esc quits"
        } else if screen.results.isEmpty {
            status = "No posters match."
        } else {
            status =
                "\(screen.results.count)\(screen.results.count >= rows - 3 ? "+" : "") found · ↑/↓ select · Enter prints the id · Esc quits"
        }
        lines.append(TextWidth.truncate(status, to: columns - 1))
        lines.append("")
        if !screen.results.isEmpty {
            let formatter = PosterFormatter(width: max(20, columns - 3), color: color)
            let listed = formatter.list(screen.results).split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in listed.prefix(max(0, rows - 3)).enumerated() {
                if index == screen.selected {
                    lines.append(color ? "\u{1B}[7m> " + line + "\u{1B}[0m" : "> " + line)
                } else {
                    lines.append("  " + line)
                }
            }
        }
        let cursorColumn = min(columns, 9 + TextWidth.of(oneLine(screen.query)))
        terminal.write("\u{1B}[H\u{1B}[2J" + lines.joined(separator: "\r\n") + "\u{1B}[1;\(cursorColumn)H")
    }

    private func oneLine(_ text: String) -> String {
        SafeText.terminal(text)
    }
}
