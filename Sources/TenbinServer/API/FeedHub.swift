import Dispatch
import TenbinKit

/// The live feeds open as server-sent event streams: each turns a feed observation into
/// `snapshot` / `added` / `modified` / `removed` events whose data lines are exactly
/// `tenbin watch --json`'s, with a heartbeat comment on every stream at a fixed interval.
final class FeedHub: Sendable {
    /// The most feeds open at once.
    let maximumFeeds: Int
    private struct State {
        var streams: [ObjectIdentifier: EventStream] = [:]
        var stopped = false
    }
    // The open streams, read and written under this lock.
    private let state = Locked(State())
    // The heartbeat timer, kept under a lock only so the class is Sendable; set once in init.
    private let timer = Locked<(any DispatchSourceTimer)?>(nil)

    /// A hub sending a heartbeat every `heartbeat`.
    init(maximumFeeds: Int, heartbeat: Duration) {
        self.maximumFeeds = maximumFeeds
        let source = DispatchSource.makeTimerSource(queue: .global())
        let milliseconds = heartbeat.components.seconds * 1000 + heartbeat.components.attoseconds / 1_000_000_000_000_000
        let interval = DispatchTimeInterval.milliseconds(Int(max(1, milliseconds)))
        source.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(250))
        source.setEventHandler { [weak self] in self?.beat() }
        source.resume()
        timer.withLock { $0 = source }
    }

    deinit {
        timer.withLock { $0?.cancel() }
    }

    /// Live feeds open now.
    var count: Int { state.withLock { $0.streams.count } }

    /// The states sent, for clients that reconnect with `Last-Event-ID`.
    let history = FeedHistory()

    /// Opens a stream delivering `observation` of `feed`; throws 503 when too many feeds are
    /// open. A client that names the last event it received (`lastEventID`, a known one for
    /// the same feed) gets the changes since then instead of a snapshot (none when nothing
    /// changed); otherwise the snapshot. Every event carries an `id:` naming the state the
    /// client holds once it has applied it. With `gzip`, the stream is compressed when zlib has
    /// the memory (see ``EventStream/isCompressed``).
    func open(_ observation: FeedObservation, of feed: Feed, lastEventID: String? = nil, gzip: Bool = false) throws(APIError)
        -> EventStream
    {
        let stream = EventStream(gzip: gzip)
        let id = ObjectIdentifier(stream)
        let admitted = state.withLock { state in
            guard !state.stopped, state.streams.count < maximumFeeds else { return false }
            state.streams[id] = stream
            return true
        }
        guard admitted else { throw .unavailable("too many live feeds are open; try again later", retryAfter: 5) }
        // Tells the browser how long to wait before reconnecting after the stream ends.
        stream.send("retry: 2000\n\n")
        let task = Task { [history] in
            var holder = FeedHolder(feed: feed, history: history, resumedFrom: lastEventID)
            do {
                for try await update in observation {
                    guard stream.send(try holder.events(for: update)) else { break }
                }
            } catch {
                stream.send("event: error\ndata: \(HTTPResponse.errorJSON(APIError(error, invalidStatus: 400)))\n\n")
            }
            stream.finish()
        }
        stream.onClose { [weak self] in
            task.cancel()
            _ = self?.state.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// A comment line on every stream: keeps proxies from closing an idle stream and finds a
    /// client that vanished without closing its connection (one that closed it is noticed at
    /// once, by ``HangUpWatch``).
    private func beat() {
        for stream in state.withLock({ Array($0.streams.values) }) { stream.send(": heartbeat\n\n") }
    }

    /// Ends every stream and refuses new ones (the server is stopping).
    func stopAll() {
        timer.withLock { $0?.cancel() }
        let streams = state.withLock { state in
            state.stopped = true
            return Array(state.streams.values)
        }
        for stream in streams { stream.finish() }
    }
}

/// What one stream's client holds, and the events that bring it up to date.
struct FeedHolder {
    let feed: Feed
    let history: FeedHistory
    /// The posters the client holds and their state's id; nil before its first event (unless
    /// it resumed).
    var held: (posters: [Poster], id: String)?

    init(feed: Feed, history: FeedHistory, resumedFrom id: String?) {
        self.feed = feed
        self.history = history
        held = id.flatMap { id in history.posters(after: id, of: feed).map { ($0, id) } }
    }

    /// The event text for `update`: a snapshot for a new client, the changes since its state
    /// for one that resumed, each event with the id of the state it leads to.
    mutating func events(for update: FeedUpdate) throws -> String {
        switch update {
        case .snapshot(let snapshot):
            guard let held else {
                let id = history.remember(snapshot, of: feed)
                held = (snapshot, id)
                let line = JSON.feedLines(update)[0]  // a snapshot is one line
                return "id: \(id)\nevent: snapshot\ndata: \(line)\n\n"
            }
            return try events(for: FeedDiff.changes(from: held.posters, to: snapshot))
        case .changes(let changes):
            return try events(for: changes)
        }
    }

    private mutating func events(for changes: [FeedChange]) throws -> String {
        guard !changes.isEmpty else { return "" }
        let from = held ?? ([], history.remember([], of: feed))
        let step = try history.step(from: from.id, through: changes) { [feed, history] in
            var text = ""
            var list = from.posters
            var id = from.id
            for change in changes {
                list = try FeedDiff.apply([change], to: list)
                id = history.remember(list, of: feed)
                text += "id: \(id)\nevent: \(Self.name(change))\ndata: \(JSON.feedChange(change))\n\n"
            }
            return FeedHistory.Step(text: text, id: id, posters: list)
        }
        held = (step.posters, step.id)
        return step.text
    }

    private static func name(_ change: FeedChange) -> String {
        switch change {
        case .added: "added"
        case .modified: "modified"
        case .removed: "removed"
        }
    }
}
