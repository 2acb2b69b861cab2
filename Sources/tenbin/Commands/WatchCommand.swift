import Dispatch
import Glibc
import TenbinKit

/// `tenbin watch [--sort new|popular|trending] [--limit N] [--query WORDS] [--json]`
enum WatchCommand: Command {
    static let spec = CommandSpec(
        name: "watch",
        abstract: "Show a feed and keep it up to date as any process posts, votes or deletes.",
        usage: "[--sort new|popular|trending] [--limit N] [--query WORDS] [--json]",
        discussion: """
            On a terminal the feed is drawn and its rows are redrawn as they change. With --json, or
            when output is not a terminal, the first line is the snapshot and each later line one
            change. Runs until Ctrl-C (exit 130).
            """
    )

    struct Options: OptionGroup {
        var sort = Option<FeedOrder>.sort
        var limit = Option.integer(["--limit"], value: "N", help: "At most N posters, 1 to 1000.", in: 1...1000, default: 20)
        var query = Option.text(["--query"], value: "WORDS", help: "Only posters whose text or hashtags contain every word.")
        var json = Flag.json("Print one JSON object per line (the default off a terminal).")
    }

    /// Exit statuses of a watch ended by a signal: 128 + the signal's number, as shells report.
    static let interrupted: Int32 = 128 + SIGINT
    static let terminated: Int32 = 128 + SIGTERM

    static func run(_ arguments: ParsedArguments<Options>, context: Context) throws -> Int32 {
        try arguments.expectPositionals()
        let query = try arguments.query
        // The same rule as `tenbin search`: words that are only white space are a mistake,
        // not a request for everything.
        if let query, SearchQuery.split(query).isEmpty {
            throw UsageError("the '--query' words are only white space", command: spec)
        }
        let feed = Feed(
            order: try arguments.sort,
            limit: try arguments.limit,
            query: query)
        let board = try context.board(.read)
        let observation: FeedObservation
        do {
            observation = try board.observe(feed)
        } catch {
            board.close()
            throw error
        }
        let screen = arguments.json || !context.stdoutIsTerminal ? nil : FeedScreen(feed: feed, color: context.useColor)
        // The session closes the board however the watch ends.
        return try WatchSession(board: board, observation: observation, screen: screen).run()
    }
}

/// One `tenbin watch` run: iterates the observation in a task while the main thread waits,
/// turns SIGINT and SIGTERM into cancelling that task, and then closes the board, on the main
/// thread, before tenbin exits: its store is closed (SQLite's write-ahead log folded into the
/// database and removed) however the watch ends.
struct WatchSession {
    /// The board observed, closed when the watch ends.
    let board: Board
    let observation: FeedObservation
    /// The terminal view, or nil for JSON lines.
    let screen: FeedScreen?

    /// Standard output went away (the reader of a pipe exited): the watch simply ends.
    struct OutputClosed: Error {}

    /// How the run ended, set by the task or a signal handler. A mutex guards the value, which
    /// is what makes this class `Sendable`.
    final class Ending: Sendable {
        let outcome = Locked<Result<Void, any Error>?>(nil)
        let signal = Locked<Int32?>(nil)
    }

    /// How long closing the board may take before tenbin exits without it.
    static let closingLimit = Duration.seconds(5)
    /// How long the task may take to end after a signal cancelled it: a task blocked writing to
    /// a reader that stopped reading (a full pipe) cannot notice, and the watch must still end.
    static let endingLimit: DispatchTimeInterval = .seconds(1)

    /// Blocks until the watch ends; returns its exit status or throws its failure.
    func run() throws -> Int32 {
        let ending = Ending()
        // Signalled when the task ends, and by each signal (the main thread then gives the task
        // ``endingLimit`` to end).
        let finished = DispatchSemaphore(value: 0)
        // Set once the task below exists; a signal that comes before finds it nil and is seen
        // by the check after the task starts.
        let running = Locked<Task<Void, Never>?>(nil)
        // The handlers are in place before the task starts: the feed's first line tells another
        // process the watch is running, and a signal sent then must not be lost.
        var sources = [SIGINT, SIGTERM].map { number in
            SignalHandler.install(number) {
                ending.signal.withLock { $0 = $0 ?? number }
                running.withLock { $0 }?.cancel()
                finished.signal()
            }
        }
        let task = Task { [observation, screen] in
            let result = await Result {
                try screen?.begin()
                try await Self.stream(observation, to: screen)
            }
            screen?.end()
            ending.outcome.withLock { $0 = result }
            finished.signal()
        }
        running.withLock { $0 = task }
        if ending.signal.withLock({ $0 }) != nil { task.cancel() }
        if let screen {
            sources.append(SignalHandler.install(SIGWINCH) { try? screen.redrawAll() })  // a failed write ends the watch on its next update
        }
        // An idle watch writes nothing, so it would not notice a pipe's reader leaving until
        // the next change: look once a second.
        let hangUp = screen == nil ? Self.every(.seconds(1)) { if Self.readerLeft() { task.cancel() } } : nil
        finished.wait()
        var taskEnded = ending.outcome.withLock { $0 != nil }
        if !taskEnded {
            // Woken by a signal: the cancelled task ends at once, unless it is stuck writing.
            _ = finished.wait(timeout: .now() + Self.endingLimit)
            taskEnded = ending.outcome.withLock { $0 != nil }
        }
        for source in sources { source.cancel() }
        hangUp?.cancel()
        closeBoard()
        if !taskEnded, let number = ending.signal.withLock({ $0 }) {
            // The task is stuck writing to standard output, and so might a flush of it be:
            // exit at once (the board is closed), leaving the terminal as it was found.
            screen?.end()
            _exit(128 + number)
        }
        if let number = ending.signal.withLock({ $0 }) { return 128 + number }
        switch ending.outcome.withLock({ $0 }) {
        case .failure(is OutputClosed): return 0
        case .failure(let error): throw error
        case .success, .none: return 0
        }
    }

    /// Closes the board: its live feeds end, their task stops, and then the store closes (so
    /// SQLite leaves no write-ahead log beside the database). Bounded, should the task not stop.
    private func closeBoard() {
        do {
            try Blocking.run(within: Self.closingLimit) { [board] in await board.close() }
        } catch {
            Errors.write(
                "Error: the live feed did not stop within \(Self.closingLimit.components.seconds) s; exiting without closing the store")
        }
    }

    /// Writes each update until the observation ends (it ends only when cancelled).
    private static func stream(_ observation: FeedObservation, to screen: FeedScreen?) async throws {
        for try await update in observation {
            if let screen {
                try screen.show(update)
            } else {
                // One write per line, so a reader sees each line as soon as it is complete.
                for line in JSON.feedLines(update) { try writeLine(line) }
            }
        }
    }

    /// Writes `line` and a newline with one write call; throws ``OutputClosed`` when nobody
    /// reads standard output any more.
    private static func writeLine(_ line: String) throws {
        switch FileDescriptor.writeAll(line + "\n", to: STDOUT_FILENO) {
        case 0: return
        case EPIPE: throw OutputClosed()
        case let failure: throw CommandFailure("standard output: cannot write: \(String(cString: strerror(failure)))")
        }
    }

    /// Whether standard output is a pipe or socket whose reading end was closed.
    private static func readerLeft() -> Bool {
        var descriptor = pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)
        return poll(&descriptor, 1, 0) == 1 && descriptor.revents & Int16(POLLERR | POLLHUP) != 0
    }

    /// Runs `handler` every `interval` on a dispatch queue until cancelled.
    private static func every(_ interval: DispatchTimeInterval, _ handler: @escaping @Sendable () -> Void) -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(100))
        timer.setEventHandler(handler: handler)
        timer.resume()
        return timer
    }
}

extension Result where Failure == any Error {
    /// The outcome of an async throwing body.
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
