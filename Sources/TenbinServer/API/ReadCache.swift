import TenbinKit

/// Encoded answers of the cached read routes (pages, search pages, single posters, the web
/// page), kept until the store changes, so the same page asked for again is a copy of bytes
/// from memory on the I/O thread instead of a store read and an encoding.
///
/// The store's changes are pushed in, never asked for per request: ``invalidate()`` drops
/// every entry and moves the generation. It is called by this server before it answers any
/// write of its own (a vote, a post, an edit, a delete), and by the server's change watch when
/// the store's change source reports a commit by anyone (another process on SQLite; another
/// server on PostgreSQL). So an answer never misses a write this server answered before the
/// request arrived, and another process's commit is missed for at most the change source's
/// delay (docs/http-api.md). An entry is kept only if no invalidation came between the start
/// of the read it was made from (its ``Ticket``) and its storing; while the change watch has
/// not started or has lost the store (``suspend()``), nothing is kept and every read goes to
/// the store.
final class ReadCache: Sendable {
    /// What was asked for: the route, its path's parameters, its raw query and, for a page,
    /// the language it is rendered in.
    struct Key: Hashable, Sendable {
        var route: String
        var parameters: [PathParameters.Value] = []
        var query: String = ""
        var language: String = ""
    }

    /// The generation a read started in.
    struct Ticket: Sendable, Equatable {
        fileprivate let generation: Int
    }

    /// One encoded answer.
    struct Entry: Sendable {
        /// The JSON body (newline included) or HTML page.
        var body: [UInt8]
        /// Whether ``body`` is an HTML page.
        var html = false
        /// A strong validator of the body: `"` + the first 32 hex digits of its SHA-256 + `"`.
        var etag: String
        /// The body gzipped, made the first time a client that takes gzip asks (see
        /// ``ReadCache/gzipped(_:for:)``): nil until then, empty when gzip would not
        /// shrink it.
        var gzipped: [UInt8]? = nil

        /// The validator of the gzipped body: a representation of its own.
        var gzipETag: String { String(etag.dropLast()) + "-gz\"" }

        /// Bytes this entry holds.
        var size: Int { body.count + (gzipped?.count ?? 0) }
    }

    /// Hit and miss counts, for the metrics.
    struct Statistics: Sendable {
        var hits = 0
        var misses = 0
        var bytes = 0
    }

    private struct State {
        var generation = 0
        /// Off until the change watch has started, and while it has lost the store.
        var suspended = true
        var entries: [Key: Entry] = [:]
        var statistics = Statistics()
    }

    /// The most bytes of bodies kept; the most entries kept.
    let maximumBytes: Int
    let maximumEntries: Int
    private let state = Locked(State())

    init(maximumBytes: Int, maximumEntries: Int = 1024) {
        self.maximumBytes = maximumBytes
        self.maximumEntries = maximumEntries
    }

    /// The entry for `key`, if any (counted as a hit or a miss).
    func entry(_ key: Key) -> Entry? {
        state.withLock { state in
            let entry = state.entries[key]
            if entry == nil { state.statistics.misses += 1 } else { state.statistics.hits += 1 }
            return entry
        }
    }

    /// Taken before a read whose answer may be stored.
    func ticket() -> Ticket {
        state.withLock { Ticket(generation: $0.suspended ? -1 : $0.generation) }
    }

    /// Stores `body` for `key`, read after `ticket` was taken, unless the store changed since;
    /// returns its entry either way.
    @discardableResult
    func store(_ body: CachedBody, for key: Key, ticket: Ticket) -> Entry {
        let entry = Entry(body: body.bytes, html: body.html, etag: Self.etag(of: body.bytes))
        guard maximumBytes > 0, entry.size <= maximumBytes / 4 else { return entry }
        state.withLock { state in
            guard !state.suspended, ticket.generation == state.generation else { return }
            if let old = state.entries.updateValue(entry, forKey: key) { state.statistics.bytes -= old.size }
            state.statistics.bytes += entry.size
            trim(&state, keeping: key)
        }
        return entry
    }

    /// The store changed (or may have): every entry goes, and reads under way store nothing.
    func invalidate() {
        state.withLock { state in
            state.generation += 1
            state.entries.removeAll(keepingCapacity: true)
            state.statistics.bytes = 0
        }
    }

    /// Nothing is kept until ``resume()``: changes cannot be heard now.
    func suspend() {
        state.withLock { state in
            state.suspended = true
            state.generation += 1
            state.entries.removeAll()
            state.statistics.bytes = 0
        }
    }

    /// Changes are heard again (from a version read before this call).
    func resume() {
        state.withLock { state in
            state.suspended = false
            state.generation += 1
        }
    }

    /// `entry` (made for `key`) with its gzipped body: compressed the first time a client that
    /// takes gzip asks for it, outside the lock, and kept with the entry while that is still
    /// the one cached, so a page is compressed once per change and never for clients that do
    /// not take gzip (scripts, benchmarks).
    func gzipped(_ entry: Entry, for key: Key) -> Entry {
        guard entry.gzipped == nil else { return entry }
        var made = entry
        made.gzipped = Gzip.compress(entry.body) ?? []
        state.withLock { state in
            guard let held = state.entries[key], held.etag == entry.etag, held.gzipped == nil else {
                return
            }
            state.entries[key] = made
            state.statistics.bytes += made.size - held.size
            trim(&state, keeping: key)
        }
        return made
    }

    /// Over a bound (many cursors or queries between two changes): drops arbitrary others.
    private func trim(_ state: inout State, keeping key: Key) {
        while state.statistics.bytes > maximumBytes || state.entries.count > maximumEntries {
            guard let victim = state.entries.keys.first(where: { $0 != key }) else { break }
            state.statistics.bytes -= state.entries.removeValue(forKey: victim)?.size ?? 0
        }
    }

    /// Whether changes are heard (and reads kept).
    var listening: Bool { state.withLock { !$0.suspended } }

    /// Counts so far.
    var statistics: Statistics { state.withLock { $0.statistics } }

    /// A quoted strong entity tag for `body`.
    static func etag(of body: [UInt8]) -> String {
        "\"" + Digest(of: body).hex.prefix(32) + "\""
    }
}
