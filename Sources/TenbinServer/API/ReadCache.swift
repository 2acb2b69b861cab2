import TenbinKit

/// Encoded answers of the read routes (pages, search pages, single posters, the web page), kept for as
/// long as the store's change version stays the same, so the same page asked for again is a
/// copy of bytes instead of a store read and an encoding.
///
/// Every lookup first reads the store's version (``Board/changeVersion()``: a commit by this
/// process or any other moves it) and is answered only by an entry made under that very
/// version; an entry is made from a read that started after its version was read. So a page
/// can never be older than the last commit before the request: a change committed before a
/// request arrived is always in its answer. Entries of older versions are dropped as soon as
/// an entry of a newer one is stored.
final class ReadCache: Sendable {
    /// What was asked for: the route and its parsed parameters.
    struct Key: Hashable, Sendable {
        enum Route: Hashable, Sendable {
            case page
            case search(String)
            case poster(Int64)
            /// The web page (`GET /`), with its search words if any.
            case webPage(String?)
        }

        var route: Route
        var order: FeedOrder = .new
        var limit = 0
        var cursor: String?
    }

    /// One encoded answer.
    struct Entry: Sendable {
        /// The JSON body, newline included.
        var body: [UInt8]
        /// A strong validator of the body: `"` + the first 32 hex digits of its SHA-256 + `"`.
        var etag: String
        /// The body gzipped, made the first time a client that takes gzip asks (see
        /// ``ReadCache/gzipped(_:for:version:)``): nil until then, empty when gzip would not
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
        var version: StoreVersion?
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

    /// The entry for `key` made under `version`, if any (counted as a hit or a miss).
    func entry(_ key: Key, version: StoreVersion) -> Entry? {
        state.withLock { state in
            let entry = state.version == version ? state.entries[key] : nil
            if entry == nil { state.statistics.misses += 1 } else { state.statistics.hits += 1 }
            return entry
        }
    }

    /// Stores `body` for `key` as read after `version` was read; returns its entry. A body of
    /// an older version than the one cached now replaces everything, and is then replaced by
    /// the next newer one: versions are only compared for equality, never served across.
    @discardableResult
    func store(_ body: [UInt8], for key: Key, version: StoreVersion) -> Entry {
        let entry = Entry(body: body, etag: Self.etag(of: body))
        guard maximumBytes > 0, entry.size <= maximumBytes / 4 else { return entry }
        state.withLock { state in
            if state.version != version {
                state.version = version
                state.entries.removeAll(keepingCapacity: true)
                state.statistics.bytes = 0
            }
            if let old = state.entries.updateValue(entry, forKey: key) { state.statistics.bytes -= old.size }
            state.statistics.bytes += entry.size
            trim(&state, keeping: key)
        }
        return entry
    }

    /// `entry` (made for `key` under `version`) with its gzipped body: compressed the first
    /// time a client that takes gzip asks for it, outside the lock, and kept with the entry
    /// while that is still the one cached, so a page is compressed once per version and never
    /// for clients that do not take gzip (scripts, benchmarks).
    func gzipped(_ entry: Entry, for key: Key, version: StoreVersion) -> Entry {
        guard entry.gzipped == nil else { return entry }
        var made = entry
        made.gzipped = Gzip.compress(entry.body) ?? []
        state.withLock { state in
            guard state.version == version, let held = state.entries[key], held.etag == entry.etag, held.gzipped == nil else {
                return
            }
            state.entries[key] = made
            state.statistics.bytes += made.size - held.size
            trim(&state, keeping: key)
        }
        return made
    }

    /// Over a bound (many cursors or queries under one version): drops arbitrary others.
    private func trim(_ state: inout State, keeping key: Key) {
        while state.statistics.bytes > maximumBytes || state.entries.count > maximumEntries {
            guard let victim = state.entries.keys.first(where: { $0 != key }) else { break }
            state.statistics.bytes -= state.entries.removeValue(forKey: victim)?.size ?? 0
        }
    }

    /// Counts so far.
    var statistics: Statistics { state.withLock { $0.statistics } }

    /// A quoted strong entity tag for `body`.
    static func etag(of body: [UInt8]) -> String {
        "\"" + Digest(of: body).hex.prefix(32) + "\""
    }
}
