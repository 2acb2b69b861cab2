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

    /// Opens a stream delivering `observation`; throws 503 when too many feeds are open.
    func open(_ observation: FeedObservation) throws(APIError) -> EventStream {
        let stream = EventStream()
        let id = ObjectIdentifier(stream)
        let admitted = state.withLock { state in
            guard !state.stopped, state.streams.count < maximumFeeds else { return false }
            state.streams[id] = stream
            return true
        }
        guard admitted else { throw .unavailable("too many live feeds are open; try again later", retryAfter: 5) }
        // Tells the browser how long to wait before reconnecting after the stream ends.
        stream.send("retry: 2000\n\n")
        let task = Task {
            do {
                for try await update in observation {
                    guard Self.deliver(update, to: stream) else { break }
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

    /// Sends one update's events; false once the stream is over.
    private static func deliver(_ update: FeedUpdate, to stream: EventStream) -> Bool {
        let lines = JSON.feedLines(update)
        let names: [String]
        switch update {
        case .snapshot: names = ["snapshot"]
        case .changes(let changes): names = changes.map(Self.name)
        }
        var text = ""
        for (name, line) in zip(names, lines) { text += "event: \(name)\ndata: \(line)\n\n" }
        return stream.send(text)
    }

    private static func name(_ change: FeedChange) -> String {
        switch change {
        case .added: "added"
        case .modified: "modified"
        case .removed: "removed"
        }
    }

    /// A comment line on every stream: keeps proxies from closing an idle stream and lets a
    /// suspended connection notice a client that left.
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
